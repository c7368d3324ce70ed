// The CollectiveService's handlers on hostile or inconsistent input, without a server:
// malformed Put messages, oversized keys, pieces sent twice, Join from unknown tasks, with
// another group_size, or for a group that never fills (naming the tasks that did not come).
#include "distributed/rpc/collective_rpc.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "tensorweave/cluster_spec.h"

namespace tw {
namespace {

grpc::ByteBuffer Buffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

std::string Field(int number, const std::string& value) {
  std::string out;
  out.push_back(static_cast<char>(number << 3 | 2));
  size_t n = value.size();
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
  return out + value;
}

CollectiveRpc MakeRpc() {
  auto cluster = ClusterSpec::FromJobs({{"worker", {"localhost:1", "localhost:2", "localhost:3"}}});
  return CollectiveRpc(*cluster, "worker", 0, absl::Seconds(5));
}

TEST(CollectiveRpcTest, MalformedPutsAreDataLoss) {
  CollectiveRpc rpc = MakeRpc();
  EXPECT_EQ(rpc.ServePut(Buffer("\xff\xff\xff")).code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(rpc.ServePut(Buffer(Field(2, "data only"))).code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(rpc.ServePut(Buffer(Field(7, "x"))).code(), absl::StatusCode::kDataLoss);
  // A length running past the end.
  EXPECT_EQ(rpc.ServePut(Buffer(Field(1, "k") + "\x12\x40" + "short")).code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(rpc.ServePut(Buffer(Field(1, std::string(1000, 'k')) + Field(2, "x"))).code(),
            absl::StatusCode::kDataLoss);
  ASSERT_TRUE(rpc.ServePut(Buffer(Field(1, "1/1/0/0/0") + Field(2, "abcd"))).ok());
  absl::Status twice = rpc.ServePut(Buffer(Field(1, "1/1/0/0/0") + Field(2, "abcd")));
  EXPECT_EQ(twice.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(twice.message().find("arrived twice"), std::string::npos) << twice;
  EXPECT_TRUE(rpc.ServePut(Buffer(Field(1, "1/1/0") + Field(3, "a reason"))).ok());
}

TEST(CollectiveRpcTest, JoinChecksTheRequestAndNamesTheTasksThatNeverCame) {
  CollectiveRpc rpc = MakeRpc();
  std::vector<std::string> members;
  const absl::Time soon = absl::Now() + absl::Milliseconds(100);
  EXPECT_EQ(rpc.ServeJoin(1, 2, "/job:ps/replica:0/task:0", soon, &members).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(rpc.ServeJoin(1, 0, "/job:worker/replica:0/task:1", soon, &members).code(),
            absl::StatusCode::kInvalidArgument);
  absl::Status alone = rpc.ServeJoin(1, 3, "/job:worker/replica:0/task:1", absl::Now() + absl::Milliseconds(100),
                                     &members);
  EXPECT_EQ(alone.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(alone.message().find("tasks that never joined: /job:worker/replica:0/task:0, /job:worker/replica:0/task:2"),
            std::string::npos)
      << alone;
  absl::Status other_size = rpc.ServeJoin(1, 2, "/job:worker/replica:0/task:2", soon, &members);
  EXPECT_EQ(other_size.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(other_size.message().find("says group_size 2 but an earlier member said 3"), std::string::npos)
      << other_size;
}

TEST(CollectiveRpcTest, JoinAnswersTheSortedGroupOnceFull) {
  CollectiveRpc rpc = MakeRpc();
  std::vector<std::string> first, second;
  // The first member waits for the second (another thread), then both get the same order.
  std::thread other([&] {
    ASSERT_TRUE(rpc.ServeJoin(5, 2, "/job:worker/replica:0/task:2", absl::Now() + absl::Seconds(5), &first).ok());
  });
  ASSERT_TRUE(rpc.ServeJoin(5, 2, "/job:worker/replica:0/task:1", absl::Now() + absl::Seconds(5), &second).ok());
  other.join();
  const std::vector<std::string> want = {"/job:worker/replica:0/task:1", "/job:worker/replica:0/task:2"};
  EXPECT_EQ(first, want);
  EXPECT_EQ(second, want);
  std::vector<std::string> third;
  EXPECT_EQ(rpc.ServeJoin(5, 2, "/job:worker/replica:0/task:0", absl::Now(), &third).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(CollectiveRpcTest, ParsesTaskNames) {
  std::string job;
  int task = -1;
  EXPECT_TRUE(ParseTaskName("/job:worker/replica:0/task:12", &job, &task));
  EXPECT_EQ(job, "worker");
  EXPECT_EQ(task, 12);
  EXPECT_FALSE(ParseTaskName("/job:/replica:0/task:1", &job, &task));
  EXPECT_FALSE(ParseTaskName("/job:w/replica:0/task:x", &job, &task));
  EXPECT_FALSE(ParseTaskName("worker:1", &job, &task));
}

}  // namespace
}  // namespace tw
