// RunCancellation: another thread ends a run that would wait forever (a dequeue from an
// empty queue), in this process and on a cluster, and the session keeps working.
#include <gtest/gtest.h>

#include <thread>

#include "absl/synchronization/notification.h"
#include "distributed/rpc/grpc_util.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

// Runs `fetch` (which blocks) with a RunCancellation that another thread cancels once the
// run has started; returns the run's status.
Status RunAndCancel(Session& sess, const Output& fetch) {
  RunCancellation cancellation;
  absl::Notification started;
  std::thread canceller([&] {
    started.WaitForNotification();
    absl::SleepFor(absl::Milliseconds(200));  // Let the run reach the blocking dequeue.
    cancellation.Cancel();
  });
  started.Notify();
  std::vector<Tensor> outputs;
  Status s = sess.Run({}, {fetch.name()}, {}, &outputs, &cancellation);
  canceller.join();
  return s;
}

// `step_gone` waits until the cancelled step no longer runs anywhere.
void ExpectCancelledThenRunsAgain(Graph& g, const std::string& target, const std::string& device,
                                  const std::function<void()>& step_gone = [] {}) {
  FIFOQueue queue;
  Output value;
  Operation enqueue;
  {
    auto on = g.device(device);
    queue = FIFOQueue(g, -1, {DType::kFloat}, {PartialShape({})});
    value = queue.dequeue()[0];
    enqueue = queue.enqueue({constant(g, 7.0f)});
  }
  Session sess(g, target);
  EXPECT_STATUS(RunAndCancel(sess, value), absl::StatusCode::kCancelled, "cancelled");
  step_gone();
  // A cancellation given before the run ends it at once.
  RunCancellation early;
  early.Cancel();
  EXPECT_TRUE(early.cancelled());
  std::vector<Tensor> outputs;
  EXPECT_STATUS(sess.Run({}, {value.name()}, {}, &outputs, &early), absl::StatusCode::kCancelled, "cancelled");
  // The same session runs the next steps; the cancelled dequeue took nothing.
  sess.run(enqueue);
  RunCancellation unused;
  ASSERT_TRUE(sess.Run({}, {value.name()}, {}, &outputs, &unused).ok());
  EXPECT_EQ(outputs.at(0).scalar<float>(), 7.0f);
}

TEST(RunCancellationTest, LocalSession) {
  Graph g;
  ExpectCancelledThenRunsAgain(g, "", "");
}

TEST(RunCancellationTest, LocalSessionWithPartitions) {
  // Two CPU devices: the dequeue waits on cpu:1 while cpu:0 waits in a Recv for its value.
  Graph g;
  FIFOQueue queue;
  Output total;
  {
    auto on = g.device("/cpu:1");
    queue = FIFOQueue(g, -1, {DType::kFloat}, {PartialShape({})});
    total = queue.dequeue()[0];
  }
  {
    auto on = g.device("/cpu:0");
    total = total * 2.0f;
  }
  SessionConfig config;
  config.cpu_device_count = 2;
  Session sess(g, "", config);
  EXPECT_STATUS(RunAndCancel(sess, total), absl::StatusCode::kCancelled, "cancelled");
}

TEST(RunCancellationTest, GrpcSessionCancelsTheStepOnTheServer) {
  auto server = Server::CreateLocal();
  ASSERT_TRUE(server.ok()) << server.status();
  // The client's call ends at once; the master notices the cancelled call and aborts the
  // step on the worker, whose dequeue then no longer waits.
  auto worker = WorkerService::NewStub(MakeChannel((*server)->target().substr(7)));
  auto active_steps = [&] {
    grpc::ClientContext ctx;
    GetStatusResponse status;
    EXPECT_TRUE(worker->GetStatus(&ctx, GetStatusRequest(), &status).ok());
    return status.active_steps();
  };
  Graph g;
  ExpectCancelledThenRunsAgain(g, (*server)->target(), "", [&] {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (active_steps() > 0 && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(20));
    EXPECT_EQ(active_steps(), 0);
  });
}

// SessionConfig::operation_timeout_ms (TF's operation_timeout_in_ms): a step running longer
// is cancelled and fails with DeadlineExceeded; a run's own timeout_ms overrides it; a
// step that ends in time is not affected, and the session keeps working.
TEST(OperationTimeoutTest, BlockedStepFailsWithDeadlineExceeded) {
  Graph g;
  FIFOQueue queue(g, -1, {DType::kFloat}, {PartialShape({})});
  Output value = queue.dequeue()[0];
  Operation enqueue = queue.enqueue({constant(g, 3.0f)});
  SessionConfig config;
  config.operation_timeout_ms = 150;
  Session sess(g, "", config);
  std::vector<Tensor> outputs;
  const absl::Time start = absl::Now();
  EXPECT_STATUS(sess.Run({}, {value.name()}, {}, &outputs), absl::StatusCode::kDeadlineExceeded,
                "Timed out waiting for notification: the step ran longer than 150 ms");
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(140));
  EXPECT_STATUS(sess.Run({}, {value.name()}, {}, &outputs, nullptr, 50), absl::StatusCode::kDeadlineExceeded,
                "longer than 50 ms");
  sess.run(enqueue);
  ASSERT_TRUE(sess.Run({}, {value.name()}, {}, &outputs).ok());
  EXPECT_EQ(outputs.at(0).scalar<float>(), 3.0f);
  // A caller's cancellation still reads as Cancelled, not as a timeout.
  RunCancellation early;
  early.Cancel();
  EXPECT_STATUS(sess.Run({}, {value.name()}, {}, &outputs, &early), absl::StatusCode::kCancelled, "cancelled");
}

TEST(OperationTimeoutTest, NegativeTimeoutIsRefused) {
  Graph g;
  SessionConfig config;
  config.operation_timeout_ms = -1;
  EXPECT_THROW(Session(g, "", config), StatusError);
}

}  // namespace
}  // namespace tw
