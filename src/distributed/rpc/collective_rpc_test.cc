// The CollectiveService's handlers on hostile or inconsistent input, without a server:
// malformed Put messages, oversized keys, pieces sent twice, Join from unknown tasks, with
// another group_size, or for a group that never fills (naming the tasks that did not come).
// Then the all-reduce itself between 2-4 runtimes served by in-process gRPC servers: both
// algorithms (direct for small tensors, ring above), every merge op, sizes not divisible by
// the group, zero, results bit-identical across members, and a member that is gone.
#include "distributed/rpc/collective_rpc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "core/net_util.h"
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

// n runtimes, each served by its own gRPC server on loopback.
class Group {
 public:
  explicit Group(int n) {
    auto addresses = FreeLoopbackAddresses({{"worker", n}});
    EXPECT_TRUE(addresses.ok()) << addresses.status();
    auto cluster = ClusterSpec::FromJobs({{"worker", (*addresses)["worker"]}});
    EXPECT_TRUE(cluster.ok()) << cluster.status();
    for (int t = 0; t < n; ++t) {
      auto rpc = std::make_shared<CollectiveRpc>(*cluster, "worker", t, absl::Seconds(20));
      grpc::ServerBuilder builder;
      builder.AddListeningPort((*addresses)["worker"][t], grpc::InsecureServerCredentials());
      builder.SetMaxReceiveMessageSize(-1);
      builder.RegisterService(rpc->service());
      servers_.push_back(builder.BuildAndStart());
      EXPECT_NE(servers_.back(), nullptr);
      rpcs_.push_back(std::move(rpc));
    }
  }
  ~Group() {
    for (size_t t = 0; t < rpcs_.size(); ++t) Stop(t);
  }
  void Stop(size_t t) {
    if (servers_[t] == nullptr) return;
    rpcs_[t]->Shutdown();
    servers_[t]->Shutdown(std::chrono::system_clock::now());
    servers_[t].reset();
  }
  // Runs the collective on the members in `who` at once; each one's status.
  std::vector<absl::Status> Run(const CollectiveParams& params, std::vector<Tensor>& data,
                                const std::vector<int>& who) {
    std::vector<absl::Status> status(who.size());
    std::vector<absl::Notification> done(who.size());
    for (size_t i = 0; i < who.size(); ++i) {
      rpcs_[who[i]]->Run(params, data[who[i]], nullptr, [&, i](absl::Status s) {
        status[i] = s;
        done[i].Notify();
      });
    }
    for (absl::Notification& d : done) d.WaitForNotification();
    return status;
  }

 private:
  std::vector<std::shared_ptr<CollectiveRpc>> rpcs_;
  std::vector<std::unique_ptr<grpc::Server>> servers_;
};

template <typename T>
T Merge(T a, T b, const std::string& op) {
  if (op == "Add") return a + b;
  if (op == "Mul") return a * b;
  if (op == "Max") return std::max(a, b);
  return std::min(a, b);
}

// Member t holds small values depending on (t, i), so that products stay exact in int32.
template <typename T>
std::vector<Tensor> Inputs(int n, int64_t size, DType dtype) {
  std::vector<Tensor> data;
  for (int t = 0; t < n; ++t) {
    Tensor x(dtype, TensorShape({size}));
    for (int64_t i = 0; i < size; ++i) x.flat<T>()[i] = static_cast<T>((i * 7 + t * 13) % 5 - 2 + (t == 1 ? 3 : 0));
    data.push_back(x);
  }
  return data;
}

// Sizes: zero, one, not divisible by 2, 3 or 4, and past the direct threshold (64 KiB)
// so that the ring runs, over several 1 MiB pieces for the last.
const int64_t kSizes[] = {0, 1, 5, 1001, 20011, 600001};

TEST(CollectiveRpcAllReduceTest, EveryMergeOpOnTwoThreeAndFourMembers) {
  for (const char* shm : {"1", "0"}) {  // through shared memory, then around the ring
    setenv("TW_COLLECTIVE_SHM", shm, 1);
    int64_t instance = 0;
    for (int n : {2, 3, 4}) {
      Group group(n);
      std::vector<int> all;
      for (int t = 0; t < n; ++t) all.push_back(t);
      for (const char* op : {"Add", "Mul", "Max", "Min"}) {
        for (int64_t size : kSizes) {
          std::vector<Tensor> data = Inputs<int32_t>(n, size, DType::kInt32);
          std::vector<int32_t> want(size);
          for (int64_t i = 0; i < size; ++i) {
            want[i] = data[0].flat<int32_t>()[i];
            for (int t = 1; t < n; ++t) want[i] = Merge(want[i], data[t].flat<int32_t>()[i], op);
          }
          CollectiveParams params;
          params.node_name = "test";
          params.group_size = n;
          params.group_key = 1;
          params.instance_key = ++instance;
          params.merge_op = op;
          for (const absl::Status& s : group.Run(params, data, all)) ASSERT_TRUE(s.ok()) << s;
          for (int t = 0; t < n; ++t) {
            ASSERT_EQ(data[t].NumElements(), size);
            for (int64_t i = 0; i < size; ++i) {
              ASSERT_EQ(data[t].flat<int32_t>()[i], want[i])
                  << op << " of " << size << " elements on " << n << " members: member " << t << ", element " << i;
            }
          }
        }
      }
    }
  }
  unsetenv("TW_COLLECTIVE_SHM");
}

TEST(CollectiveRpcAllReduceTest, FloatSumsAreTheSameBitsOnEveryMember) {
  for (const char* shm : {"1", "0"}) {  // through shared memory, then around the ring
    setenv("TW_COLLECTIVE_SHM", shm, 1);
    for (int n : {3, 4}) {
      Group group(n);
      std::vector<int> all;
      for (int t = 0; t < n; ++t) all.push_back(t);
      for (int64_t size : kSizes) {
        std::vector<Tensor> data;
        for (int t = 0; t < n; ++t) {
          Tensor x(DType::kFloat, TensorShape({size}));
          // Values of mixed magnitudes: the order of the additions shows in the bits.
          for (int64_t i = 0; i < size; ++i) x.flat<float>()[i] = std::sin(i * 0.37f + t) * std::pow(10.0f, t % 3 * 3);
          data.push_back(x);
        }
        CollectiveParams params;
        params.node_name = "test";
        params.group_size = n;
        params.group_key = 2;
        params.instance_key = size + 1;
        std::vector<double> want(size, 0.0);
        for (int t = 0; t < n; ++t) {
          for (int64_t i = 0; i < size; ++i) want[i] += data[t].flat<float>()[i];
        }
        for (const absl::Status& s : group.Run(params, data, all)) ASSERT_TRUE(s.ok()) << s;
        for (int64_t i = 0; i < size; ++i) {
          ASSERT_NEAR(data[0].flat<float>()[i], want[i], 1e-3 * std::max(1.0, std::abs(want[i]))) << i;
          for (int t = 1; t < n; ++t) {
            ASSERT_EQ(std::memcmp(&data[t].flat<float>()[i], &data[0].flat<float>()[i], sizeof(float)), 0)
                << "element " << i << " of " << size << ": member " << t << " has " << data[t].flat<float>()[i]
                << ", member 0 " << data[0].flat<float>()[i];
          }
        }
      }
    }
  }
  unsetenv("TW_COLLECTIVE_SHM");
}

TEST(CollectiveRpcAllReduceTest, RepeatedRunsReuseTheirBuffersAndStayRight) {
  // The same collective run again and again with new values: on one host, the shared-memory
  // segments of one run are kept for the run after next (two alternate).
  Group group(3);
  for (int run = 0; run < 6; ++run) {
    std::vector<Tensor> data = Inputs<float>(3, 100003 + (run % 2), DType::kFloat);
    for (int t = 0; t < 3; ++t) data[t].flat<float>()[7] = static_cast<float>(run * 10 + t);
    CollectiveParams params;
    params.node_name = "test";
    params.group_size = 3;
    params.group_key = 1;
    params.instance_key = 5;
    const int64_t last = data[0].NumElements() - 1;
    float want_last = 0;
    for (int t = 0; t < 3; ++t) want_last += data[t].flat<float>()[last];
    for (const absl::Status& s : group.Run(params, data, {0, 1, 2})) ASSERT_TRUE(s.ok()) << s;
    for (int t = 0; t < 3; ++t) {
      ASSERT_EQ(data[t].flat<float>()[7], static_cast<float>(30 * run + 3)) << run;
      ASSERT_EQ(data[t].flat<float>()[last], want_last) << run;
    }
  }
}

TEST(CollectiveRpcAllReduceTest, DifferentSizesFailNamingTheSizes) {
  for (const char* shm : {"1", "0"}) {  // through shared memory, then around the ring
    setenv("TW_COLLECTIVE_SHM", shm, 1);
    Group group(2);
    for (int64_t size : {int64_t{10}, int64_t{30000}}) {  // Direct, then ring.
      std::vector<Tensor> data = {Tensor(DType::kFloat, TensorShape({size})),
                                  Tensor(DType::kFloat, TensorShape({size + 2}))};
      CollectiveParams params;
      params.node_name = "test";
      params.group_size = 2;
      params.group_key = 1;
      params.instance_key = size;
      params.timeout_seconds = 10;
      for (const absl::Status& s : group.Run(params, data, {0, 1})) {
        EXPECT_FALSE(s.ok());
        EXPECT_NE(s.message().find("differ in size"), std::string::npos) << s;
      }
    }
  }
  unsetenv("TW_COLLECTIVE_SHM");
}

TEST(CollectiveRpcAllReduceTest, SizesEitherSideOfTheDirectLimitFailAtOnce) {
  // 64,000 bytes go direct, 65,600 around the ring: each member sees the other algorithm's
  // pieces arrive for its run and fails then, not at the deadline.
  Group group(2);
  std::vector<Tensor> data = {Tensor(DType::kFloat, TensorShape({16000})), Tensor(DType::kFloat, TensorShape({16400}))};
  CollectiveParams params;
  params.node_name = "test";
  params.group_size = 2;
  params.group_key = 1;
  params.instance_key = 7;
  params.timeout_seconds = 30;
  const absl::Time start = absl::Now();
  for (const absl::Status& s : group.Run(params, data, {0, 1})) {
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("the members' tensors differ in size"), std::string::npos) << s;
  }
  EXPECT_LT(absl::Now() - start, absl::Seconds(15));
}

TEST(CollectiveRpcAllReduceTest, AMemberThatIsGoneIsNamed) {
  for (const char* shm : {"1", "0"}) {  // through shared memory, then around the ring
    setenv("TW_COLLECTIVE_SHM", shm, 1);
    for (int64_t size : {int64_t{100}, int64_t{300000}}) {  // Direct, then ring.
      Group group(3);
      std::vector<Tensor> data = Inputs<float>(3, size, DType::kFloat);
      CollectiveParams params;
      params.node_name = "test";
      params.group_size = 3;
      params.group_key = 1;
      params.instance_key = 1;
      params.timeout_seconds = 2;
      for (const absl::Status& s : group.Run(params, data, {0, 1, 2})) ASSERT_TRUE(s.ok()) << s;
      // Task 2 does not come to the next run: the others name it at the deadline (in the
      // ring, task 1 waits on task 0 and may time out first naming it; task 0 waits on 2).
      std::vector<absl::Status> missing = group.Run(params, data, {0, 1});
      for (size_t i = 0; i < missing.size(); ++i) {
        EXPECT_FALSE(missing[i].ok());
        if (i == 0 || size == 100) {
          EXPECT_NE(missing[i].message().find("/job:worker/replica:0/task:2"), std::string::npos) << missing[i];
        }
      }
      // Task 2 stops serving: sends to it fail, naming it.
      group.Stop(2);
      params.instance_key = 2;
      for (const absl::Status& s : group.Run(params, data, {0, 1})) {
        EXPECT_FALSE(s.ok());
        EXPECT_NE(s.message().find("/job:worker/replica:0/task:2"), std::string::npos) << s;
      }
    }
  }
  unsetenv("TW_COLLECTIVE_SHM");
}

}  // namespace
}  // namespace tw
