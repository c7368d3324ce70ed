#include "distributed/worker.h"

#include <gtest/gtest.h>

#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

class NoOtherTasks : public WorkerCache {
 public:
  absl::StatusOr<WorkerInterface*> GetWorker(const std::string& job, int task) override {
    return absl::UnavailableError("no other tasks in this test");
  }
};

TEST(WorkerTest, RecvTensorOfAFinishedStepFailsAtOnce) {
  NoOtherTasks cache;
  Worker worker("local", 0, &cache);
  CleanupGraphRequest cleanup;
  cleanup.set_step_id(7);
  CleanupGraphResponse ignored;
  ASSERT_TRUE(worker.CleanupGraph(cleanup, &ignored).ok());
  RecvTensorRequest req;
  req.set_step_id(7);
  req.set_rendezvous_key("/job:local/replica:0/task:0/device:CPU:0;1;/job:local/replica:0/task:1/device:CPU:0;x:0;0:0");
  absl::Status status = absl::UnknownError("done never ran");
  worker.RecvTensorAsync(req, nullptr, [&](const absl::Status& s, const Tensor&) { status = s; });
  EXPECT_STATUS(status, absl::StatusCode::kAborted, "step 7 already finished");
}

TEST(WorkerTest, RegisteredGraphRunsAndRejectsForeignDevices) {
  NoOtherTasks cache;
  Worker worker("local", 0, &cache);
  Graph g;
  Output y;
  {
    auto on = g.device("/job:local/replica:0/task:0/device:CPU:0");
    y = constant(g, 20) + constant(g, 22);
    g.AddOperation("_Retval", "ret", {y}, {{"index", MakeAttr(0)}});
  }
  RegisterGraphRequest reg;
  *reg.mutable_graph_def() = g.ToGraphDef();
  RegisterGraphResponse reg_resp;
  ASSERT_TRUE(worker.RegisterGraph(reg, &reg_resp).ok());
  RunGraphRequest run;
  run.set_graph_handle(reg_resp.graph_handle());
  run.set_step_id(1);
  run.add_recv_key("ret:0");
  RunGraphResponse out;
  ASSERT_TRUE(worker.RunGraph(run, &out).ok());
  ASSERT_EQ(out.recv_size(), 1);
  EXPECT_EQ(out.recv(0).tensor().tensor_content().size(), 4u);

  Graph foreign;
  {
    auto on = foreign.device("/job:local/replica:0/task:3/device:CPU:0");
    constant(foreign, 1, "elsewhere");
  }
  *reg.mutable_graph_def() = foreign.ToGraphDef();
  EXPECT_STATUS(worker.RegisterGraph(reg, &reg_resp), absl::StatusCode::kInvalidArgument, "node 'elsewhere'");
}

// A successful step needs no CleanupGraph: the task forgets it once its partition ran and
// every tensor it sent was received.
TEST(WorkerTest, ForgetsAStepOnceItsSentTensorsAreReceived) {
  NoOtherTasks cache;
  Worker worker("local", 0, &cache);
  const std::string here = "/job:local/replica:0/task:0/device:CPU:0";
  const std::string there = "/job:local/replica:0/task:1/device:CPU:0";
  Graph g;
  {
    auto on = g.device(here);
    g.AddOperation("_Send", "send", {constant(g, 42)},
                   {{"tensor_name", MakeAttr("x:0")},
                    {"send_device", MakeAttr(here)},
                    {"send_device_incarnation", MakeAttr(static_cast<int64_t>(worker.incarnation()))},
                    {"recv_device", MakeAttr(there)}});
  }
  RegisterGraphRequest reg;
  *reg.mutable_graph_def() = g.ToGraphDef();
  RegisterGraphResponse reg_resp;
  ASSERT_TRUE(worker.RegisterGraph(reg, &reg_resp).ok());
  auto active_steps = [&] {
    GetStatusResponse status;
    EXPECT_TRUE(worker.GetStatus({}, &status).ok());
    return status.active_steps();
  };
  RunGraphRequest run;
  run.set_graph_handle(reg_resp.graph_handle());
  run.set_step_id(5);
  RunGraphResponse out;
  ASSERT_TRUE(worker.RunGraph(run, &out).ok());
  EXPECT_EQ(active_steps(), 1);  // x waits for task 1 to pull it.

  RecvTensorRequest req;
  req.set_step_id(5);
  req.set_rendezvous_key(Rendezvous::CreateKey(here, worker.incarnation(), there, "x:0"));
  absl::Status status = absl::UnknownError("done never ran");
  Tensor received;
  worker.RecvTensorAsync(req, nullptr, [&](const absl::Status& s, const Tensor& t) {
    status = s;
    received = t;
  });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(received.scalar<int32_t>(), 42);
  EXPECT_EQ(active_steps(), 0);
}

}  // namespace
}  // namespace tw
