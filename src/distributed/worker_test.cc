#include "distributed/worker.h"

#include <gtest/gtest.h>

#include <map>

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

// Receives req's keys from `worker`; returns the status and the tensors by key index.
absl::Status Pull(WorkerInterface& worker, const RecvTensorsRequest& req, std::map<int, Tensor>* tensors) {
  absl::Status status = absl::UnknownError("done never ran");
  worker.RecvTensorsAsync(req, nullptr, [&](int i, const Tensor& t) { EXPECT_TRUE(tensors->emplace(i, t).second); },
                          [&](const absl::Status& s) { status = s; });
  return status;
}

TEST(WorkerTest, RecvTensorsOfAFinishedStepFailsAtOnce) {
  NoOtherTasks cache;
  Worker worker("local", 0, &cache);
  CleanupGraphRequest cleanup;
  cleanup.set_step_id(7);
  CleanupGraphResponse ignored;
  ASSERT_TRUE(worker.CleanupGraph(cleanup, &ignored).ok());
  RecvTensorsRequest req;
  req.set_step_id(7);
  req.add_rendezvous_key("/job:local/replica:0/task:0/device:CPU:0;1;/job:local/replica:0/task:1/device:CPU:0;x:0;0:0");
  std::map<int, Tensor> tensors;
  EXPECT_STATUS(Pull(worker, req, &tensors), absl::StatusCode::kAborted, "step 7 already finished");
  EXPECT_TRUE(tensors.empty());
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
  reg.set_session_handle("test_session");
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
  reg.set_session_handle("test_session");
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

  RecvTensorsRequest req;
  req.set_step_id(5);
  req.add_rendezvous_key(Rendezvous::CreateKey(here, worker.incarnation(), there, "x:0"));
  std::map<int, Tensor> received;
  ASSERT_TRUE(Pull(worker, req, &received).ok());
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].scalar<int32_t>(), 42);
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
    reg.set_session_handle("test_session");
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

// Task 1 as an in-process Worker, counting the RecvTensors exchanges asked of it.
class OneOtherTask : public WorkerCache, public WorkerInterface {
 public:
  explicit OneOtherTask(Worker* task1) : task1_(task1) {}
  absl::StatusOr<WorkerInterface*> GetWorker(const std::string& job, int task) override {
    if (job == "local" && task == 1) return this;
    return absl::UnavailableError(absl::StrCat("no task ", job, ":", task, " in this test"));
  }
  void RecvTensorsAsync(const RecvTensorsRequest& req, CancellationManager* cancellation, RecvTensorsArrived arrived,
                        std::function<void(const absl::Status&)> done) override {
    pulls.push_back(req);
    task1_->RecvTensorsAsync(req, cancellation, std::move(arrived), std::move(done));
  }
  absl::Status GetStatus(const GetStatusRequest& req, GetStatusResponse* resp) override { return Unused(); }
  absl::Status RegisterGraph(const RegisterGraphRequest& req, RegisterGraphResponse* resp) override { return Unused(); }
  absl::Status DeregisterGraph(const DeregisterGraphRequest& req, DeregisterGraphResponse* resp) override {
    return Unused();
  }
  void RunGraphAsync(const RunGraphRequest*, RunGraphResponse*, std::function<void(const absl::Status&)> done) override {
    done(Unused());
  }
  absl::Status CleanupGraph(const CleanupGraphRequest& req, CleanupGraphResponse* resp) override { return Unused(); }
  absl::Status CleanupAll(const CleanupAllRequest& req, CleanupAllResponse* resp) override { return Unused(); }

  std::vector<RecvTensorsRequest> pulls;

 private:
  static absl::Status Unused() { return absl::UnimplementedError("not used by the receiving task"); }
  Worker* task1_;
};

// A partition receiving three tensors from another task pulls them in one exchange,
// started with its RunGraph (before the sender ran), and gets each in its place.
TEST(WorkerTest, PullsWhatAPartitionReceivesFromATaskInOneExchange) {
  NoOtherTasks none;
  Worker sender("local", 1, &none);
  OneOtherTask cache(&sender);
  Worker receiver("local", 0, &cache);
  const std::string task0 = "/job:local/replica:0/task:0/device:CPU:0";
  const std::string task1 = "/job:local/replica:0/task:1/device:CPU:0";
  auto edge = [&](const std::string& name) -> AttrMap {
    return {{"tensor_name", MakeAttr(name)},
            {"send_device", MakeAttr(task1)},
            {"send_device_incarnation", MakeAttr(static_cast<int64_t>(sender.incarnation()))},
            {"recv_device", MakeAttr(task0)}};
  };
  auto register_graph = [](Worker& worker, Graph& g) {
    RegisterGraphRequest reg;
    reg.set_session_handle("test_session");
    *reg.mutable_graph_def() = g.ToGraphDef();
    RegisterGraphResponse resp;
    EXPECT_TRUE(worker.RegisterGraph(reg, &resp).ok());
    return resp.graph_handle();
  };
  const std::vector<std::string> names = {"a:0", "b:0", "c:0"};
  Graph recv_graph;
  {
    auto on = recv_graph.device(task0);
    std::vector<Output> received;
    for (const std::string& name : names) {
      AttrMap attrs = edge(name);
      attrs["tensor_type"] = MakeAttr(DType::kFloat);
      received.push_back(recv_graph.AddOperation("_Recv", "recv_" + name.substr(0, 1), {}, attrs).output(0));
    }
    // 100 a + 10 b + c shows each tensor landed in its own place.
    Output sum = received[0] * 100.0f + received[1] * 10.0f + received[2];
    recv_graph.AddOperation("_Retval", "ret", {sum}, {{"index", MakeAttr(0)}});
  }
  Graph send_graph;
  {
    auto on = send_graph.device(task1);
    for (size_t i = 0; i < names.size(); ++i) {
      AttrMap attrs = edge(names[i]);
      attrs["T"] = MakeAttr(DType::kFloat);
      send_graph.AddOperation("_Send", "send_" + names[i].substr(0, 1), {constant(send_graph, 1.0f + i)}, attrs);
    }
  }
  RunGraphRequest run0, run1;
  run0.set_graph_handle(register_graph(receiver, recv_graph));
  run0.set_step_id(3);
  run0.add_recv_key("ret:0");
  run1.set_graph_handle(register_graph(sender, send_graph));
  run1.set_step_id(3);
  absl::Notification received;
  absl::Status status;
  RunGraphResponse out0, out1;
  receiver.RunGraphAsync(&run0, &out0, [&](const absl::Status& s) {
    status = s;
    received.Notify();
  });
  ASSERT_EQ(cache.pulls.size(), 1u);
  EXPECT_EQ(cache.pulls[0].rendezvous_key_size(), 3);
  EXPECT_FALSE(received.HasBeenNotified());  // Waits for task 1's step.
  ASSERT_TRUE(sender.RunGraph(run1, &out1).ok());
  received.WaitForNotification();
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(out0.recv_size(), 1);
  auto sum = TensorFromProto(out0.recv(0).tensor());
  ASSERT_TRUE(sum.ok());
  EXPECT_FLOAT_EQ(sum->scalar<float>(), 123.0f);

  // A source task that cannot be reached fails the step with its error.
  Worker lonely("local", 0, &none);
  run0.set_graph_handle(register_graph(lonely, recv_graph));
  EXPECT_STATUS(lonely.RunGraph(run0, &out0), absl::StatusCode::kUnavailable, "no other tasks in this test");
}

}  // namespace
}  // namespace tw
