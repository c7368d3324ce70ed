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

}  // namespace
}  // namespace tw
