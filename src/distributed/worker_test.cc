#include "distributed/worker.h"

#include <gtest/gtest.h>

#include "tensorweave/tensorweave.h"
#include "tensor/tensor_proto.h"
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

// Small tensors sent to the master's task travel in the RunGraph response (recv_key names
// their rendezvous key) and the master hands them to its own task's receiver
// (master_delivered_key) instead of that task pulling them.
TEST(WorkerTest, ReturnsSentTensorsAndTakesDeliveredOnes) {
  NoOtherTasks cache;
  Worker sender("local", 1, &cache), receiver("local", 0, &cache);
  const std::string task0 = "/job:local/replica:0/task:0/device:CPU:0";
  const std::string task1 = "/job:local/replica:0/task:1/device:CPU:0";
  auto pair_attrs = [&](const Worker& from) -> AttrMap {
    return {{"tensor_name", MakeAttr("x:0")},
            {"send_device", MakeAttr(task1)},
            {"send_device_incarnation", MakeAttr(static_cast<int64_t>(from.incarnation()))},
            {"recv_device", MakeAttr(task0)}};
  };
  const std::string key = Rendezvous::CreateKey(task1, sender.incarnation(), task0, "x:0");
  auto register_graph = [](Worker& worker, Graph& g) {
    RegisterGraphRequest reg;
    *reg.mutable_graph_def() = g.ToGraphDef();
    RegisterGraphResponse resp;
    EXPECT_TRUE(worker.RegisterGraph(reg, &resp).ok());
    return resp.graph_handle();
  };

  Graph send_graph;
  {
    auto on = send_graph.device(task1);
    AttrMap attrs = pair_attrs(sender);
    attrs["T"] = MakeAttr(DType::kInt32);
    send_graph.AddOperation("_Send", "send", {constant(send_graph, 41)}, attrs);
  }
  RunGraphRequest run;
  run.set_graph_handle(register_graph(sender, send_graph));
  run.set_step_id(9);
  run.add_recv_key(key);
  RunGraphResponse sent;
  ASSERT_TRUE(sender.RunGraph(run, &sent).ok());
  ASSERT_EQ(sent.recv_size(), 1);
  EXPECT_EQ(sent.recv(0).name(), key);
  GetStatusResponse status;
  ASSERT_TRUE(sender.GetStatus({}, &status).ok());
  EXPECT_EQ(status.active_steps(), 0);  // Returned, so nothing waits for a pull.

  run.set_step_id(10);
  run.set_recv_key(0, "/job:local/replica:0/task:7/device:CPU:0;1;x");
  EXPECT_STATUS(sender.RunGraph(run, &sent), absl::StatusCode::kInvalidArgument,
                "neither ret:N nor a tensor sent by task /job:local/replica:0/task:1");

  Graph recv_graph;
  {
    auto on = recv_graph.device(task0);
    AttrMap attrs = pair_attrs(sender);
    attrs["tensor_type"] = MakeAttr(DType::kInt32);
    Output x = recv_graph.AddOperation("_Recv", "recv", {}, attrs).output(0);
    recv_graph.AddOperation("_Retval", "ret", {x + 1}, {{"index", MakeAttr(0)}});
  }
  RunGraphRequest run0;
  run0.set_graph_handle(register_graph(receiver, recv_graph));
  run0.set_step_id(9);
  run0.add_recv_key("ret:0");
  run0.add_master_delivered_key(key);
  auto value = TensorFromProto(sent.recv(0).tensor());
  ASSERT_TRUE(value.ok());
  receiver.Deliver(9, key, *value);  // Pulling would fail: this cache reaches no task.
  RunGraphResponse out;
  ASSERT_TRUE(receiver.RunGraph(run0, &out).ok());
  ASSERT_EQ(out.recv_size(), 1);
  auto result = TensorFromProto(out.recv(0).tensor());
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->scalar<int32_t>(), 42);
}

}  // namespace
}  // namespace tw
