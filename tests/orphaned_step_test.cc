// Issue 14 item 9: a worker honours its caller going away. A step blocked in a dequeue on
// task 1 whose master (task 0) is killed is aborted there, so it neither stays nor takes
// the element a later client enqueues; a task stops within a bounded time on SIGTERM even
// with a blocked step. Real `tw server` processes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "distributed/rpc/grpc_util.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/tensorweave.h"
#include "testing/local_cluster.h"
#include "testing/test_util.h"

namespace tw {
namespace {

const std::string kTw = std::string(TW_BINARY_DIR) + "/tools/tw";

// A queue on task 1, shared by every session (it lives in task 1's resources).
struct QueueOnTask1 {
  explicit QueueOnTask1(Graph& g) {
    auto d = g.device("/job:local/task:1");
    FIFOQueue q(g, 10, {DType::kFloat}, {}, "shared_q", "q");
    enqueue = q.enqueue({constant(g, 42.0f)});
    dequeue = q.dequeue()[0];
  }
  Operation enqueue;
  Output dequeue;
};

// Active steps of a task (WorkerService.GetStatus); -1 if it does not answer.
int64_t ActiveSteps(const std::string& address) {
  auto stub = WorkerService::NewStub(MakeChannel(address));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  GetStatusResponse resp;
  if (!stub->GetStatus(&ctx, GetStatusRequest(), &resp).ok()) return -1;
  return resp.active_steps();
}

// Polls until the task has `n` active steps; false after `within`.
bool WaitActiveSteps(const std::string& address, int64_t n, absl::Duration within) {
  const absl::Time deadline = absl::Now() + within;
  while (absl::Now() < deadline) {
    if (ActiveSteps(address) == n) return true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return false;
}

// Runs the blocking dequeue from a client thread; the thread ends when the run fails.
std::thread BlockedDequeue(const std::string& target, absl::Status* error) {
  return std::thread([target, error] {
    Graph g;
    QueueOnTask1 m(g);
    *error = ErrorOf([&] {
      Session sess(g, target);
      sess.run(m.dequeue);
    });
  });
}

TEST(OrphanedStepTest, AStepWhoseMasterIsKilledIsAbortedAndTakesNothingLater) {
  auto cluster = testing::LocalCluster::Start({{"local", 2}}, kTw);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string task1 = *(*cluster)->spec().address("local", 1);
  absl::Status orphan_error;
  std::thread client = BlockedDequeue((*cluster)->target("local", 0), &orphan_error);
  ASSERT_TRUE(WaitActiveSteps(task1, 1, absl::Seconds(20))) << "the dequeue never started on task 1";
  (*cluster)->Kill("local", 0);  // The master: kill -9.
  client.join();
  EXPECT_FALSE(orphan_error.ok());
  // Task 1 sees its caller gone and aborts the step.
  EXPECT_TRUE(WaitActiveSteps(task1, 0, absl::Seconds(10))) << ActiveSteps(task1) << " steps left on task 1";
  // A new master and client: what it enqueues, its own dequeue gets.
  ASSERT_TRUE((*cluster)->Restart("local", 0).ok());
  Graph g;
  QueueOnTask1 m(g);
  SessionConfig config;
  config.operation_timeout_ms = 10000;  // An orphan that took the element: DeadlineExceeded, not a hang.
  Session sess(g, (*cluster)->target("local", 0), config);
  sess.run(m.enqueue);
  EXPECT_TENSOR_EQ(sess.run(m.dequeue), F32({}, {42.0f}));
}

TEST(OrphanedStepTest, SigtermStopsATaskWithABlockedStepInBoundedTime) {
  auto cluster = testing::LocalCluster::Start({{"local", 2}}, kTw);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string task1 = *(*cluster)->spec().address("local", 1);
  absl::Status error;
  std::thread client = BlockedDequeue((*cluster)->target("local", 0), &error);
  ASSERT_TRUE(WaitActiveSteps(task1, 1, absl::Seconds(20)));
  // The worker holding the blocked dequeue, then the master whose RunStep waits for it.
  const absl::Time start = absl::Now();
  EXPECT_TRUE((*cluster)->Terminate("local", 1, absl::Seconds(8)).ok());
  EXPECT_TRUE((*cluster)->Terminate("local", 0, absl::Seconds(8)).ok());
  client.join();
  EXPECT_FALSE(error.ok());
  EXPECT_LT(absl::Now() - start, absl::Seconds(16));
}

// Item 11: a step that waits on a task says so after a few seconds, naming the task.
TEST(OrphanedStepTest, AStalledStepLogsTheTaskItWaitsFor) {
  const std::string log = ::testing::TempDir() + "/stall_warning.log";
  std::remove(log.c_str());
  auto cluster = testing::LocalCluster::Start({{"local", 2}}, kTw, {}, {}, log);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string task1 = *(*cluster)->spec().address("local", 1);
  Graph g;
  QueueOnTask1 m(g);
  SessionConfig config;
  config.operation_timeout_ms = 7000;  // The step waits 7 s (warned at 5 s), then fails.
  Session sess(g, (*cluster)->target("local", 0), config);
  EXPECT_FALSE(ErrorOf([&] { sess.run(m.dequeue); }).ok());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t warning = text.find("tw master: WARNING: step ");
  ASSERT_NE(warning, std::string::npos) << text;
  const std::string line = text.substr(warning, text.find('\n', warning) - warning);
  EXPECT_NE(line.find("/job:local/replica:0/task:1"), std::string::npos) << line;
  EXPECT_NE(line.find("has not returned"), std::string::npos) << line;
  // Task 1, which the step waits for, is alive: it answers the master's status probe.
  EXPECT_NE(line.find("(every other task answered a status probe)"), std::string::npos) << line;
}

}  // namespace
}  // namespace tw
