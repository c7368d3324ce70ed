// TensorFlow's MasterService on in-process tensorweave tasks, called over gRPC with our
// copies of TensorFlow's messages: what it answers, and what it refuses by name. The
// client side (tf_master_client.h) runs against the same service. Real TensorFlow on
// either end: python/tests/test_tf_client_on_tw.py and test_tw_client_on_tf.py.
#include "distributed/rpc/tf_master_service.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <grpcpp/impl/rpc_method.h>
#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"
#include "distributed/rpc/grpc_util.h"
#include "distributed/rpc/tf_master_client.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

#define EXPECT_OK(expr)                    \
  do {                                     \
    const absl::Status status_ = (expr);   \
    EXPECT_TRUE(status_.ok()) << status_;  \
  } while (0)
#define ASSERT_OK(expr)                    \
  do {                                     \
    const absl::Status status_ = (expr);   \
    ASSERT_TRUE(status_.ok()) << status_;  \
  } while (0)

class TfMasterServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = StartInProcessCluster("local", 2);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster);
    channel_ = MakeChannel(cluster_.servers[0]->target().substr(7));
  }

  template <typename Req, typename Resp>
  absl::Status Call(const std::string& method, const Req& req, Resp* resp) {
    const grpc::internal::RpcMethod rpc(method.c_str(), grpc::internal::RpcMethod::NORMAL_RPC);
    grpc::ClientContext ctx;
    grpc::Status s = grpc::internal::BlockingUnaryCall<Req, Resp, google::protobuf::MessageLite,
                                                       google::protobuf::MessageLite>(channel_.get(), rpc, &ctx,
                                                                                      req, resp);
    return FromGrpcStatus(s, "master");
  }
  template <typename Req, typename Resp>
  absl::Status CallMaster(const std::string& name, const Req& req, Resp* resp) {
    return Call(kTfMasterServicePrefix + name, req, resp);
  }

  // Seed 000's distributed 238: y2 on task 1, the rest on task 0.
  static GraphDef Graph238() {
    Graph g;
    auto x = constant(g, 2);
    Output y2;
    {
      auto on = g.device("/job:local/task:1");
      y2 = x - 66;
    }
    auto on = g.device("/job:local/task:0");
    auto y = (x + 300) + y2;
    EXPECT_EQ(y.name(), "Add_1:0");
    return g.ToGraphDef();
  }

  std::string CreateSession(const GraphDef& graph) {
    tfwire::CreateSessionRequest req;
    *req.mutable_graph_def() = graph;
    tfwire::CreateSessionResponse resp;
    EXPECT_OK(CallMaster("CreateSession", req, &resp));
    EXPECT_EQ(resp.graph_version(), 0);
    return resp.session_handle();
  }

  InProcessCluster cluster_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(TfMasterServiceTest, RunsAStepOverBothTasksWithFetchesNamedAsAsked) {
  const std::string handle = CreateSession(Graph238());
  tfwire::RunStepRequest req;
  req.set_session_handle(handle);
  req.add_fetch("Add_1:0");
  req.add_fetch("Sub");
  tfwire::RunStepResponse resp;
  ASSERT_OK(CallMaster("RunStep", req, &resp));
  ASSERT_EQ(resp.tensor_size(), 2);
  EXPECT_EQ(resp.tensor(0).name(), "Add_1:0");
  EXPECT_EQ(resp.tensor(1).name(), "Sub");
  EXPECT_EQ(resp.tensor(0).tensor().dtype(), DT_INT32);
  auto y = TensorFromProto(resp.tensor(0).tensor());
  ASSERT_OK(y.status());
  EXPECT_EQ(y->scalar<int32_t>(), 238);
  auto y2 = TensorFromProto(resp.tensor(1).tensor());
  ASSERT_OK(y2.status());
  EXPECT_EQ(y2->scalar<int32_t>(), -64);
}

TEST_F(TfMasterServiceTest, AFailedStepGoesInTheBodyWhenTheClientAsks) {
  const std::string handle = CreateSession(Graph238());
  tfwire::RunStepRequest req;
  req.set_session_handle(handle);
  req.add_fetch("no_such_node:0");
  tfwire::RunStepResponse resp;
  absl::Status as_status = CallMaster("RunStep", req, &resp);
  EXPECT_FALSE(as_status.ok());
  req.set_store_errors_in_response_body(true);
  ASSERT_OK(CallMaster("RunStep", req, &resp));
  EXPECT_EQ(resp.status_code(), static_cast<int>(as_status.code()));
  EXPECT_EQ(resp.status_error_message(), as_status.message());
  EXPECT_NE(resp.status_error_message().find("no_such_node"), std::string::npos) << resp.status_error_message();
}

TEST_F(TfMasterServiceTest, ExtendSessionChecksAndAdvancesTheGraphVersion) {
  const std::string handle = CreateSession(Graph238());
  Graph more;
  auto z = constant(more, 5, "five");
  tfwire::ExtendSessionRequest req;
  req.set_session_handle(handle);
  *req.mutable_graph_def() = more.ToGraphDef();
  req.set_current_graph_version(3);
  tfwire::ExtendSessionResponse resp;
  EXPECT_STATUS(CallMaster("ExtendSession", req, &resp), absl::StatusCode::kFailedPrecondition,
                "current_graph_version 3 is not the session's graph version 0");
  req.set_current_graph_version(0);
  ASSERT_OK(CallMaster("ExtendSession", req, &resp));
  EXPECT_EQ(resp.new_graph_version(), 1);
  tfwire::RunStepRequest run;
  run.set_session_handle(handle);
  run.add_fetch(z.name());
  tfwire::RunStepResponse out;
  ASSERT_OK(CallMaster("RunStep", run, &out));
  EXPECT_EQ(TensorFromProto(out.tensor(0).tensor())->scalar<int32_t>(), 5);
  // A second extension of version 1 (a TF client's graph grows more than once).
  Graph again;
  auto six = constant(again, 6, "six");
  *req.mutable_graph_def() = again.ToGraphDef();
  req.set_current_graph_version(1);
  ASSERT_OK(CallMaster("ExtendSession", req, &resp));
  EXPECT_EQ(resp.new_graph_version(), 2);
  run.set_fetch(0, six.name());
  ASSERT_OK(CallMaster("RunStep", run, &out));
  EXPECT_EQ(TensorFromProto(out.tensor(0).tensor())->scalar<int32_t>(), 6);
}

TEST_F(TfMasterServiceTest, CallablesRunTheirSignatureAndCheckTheirFeeds) {
  Graph g;
  auto p = placeholder(g, DType::kFloat, PartialShape({3}), "p");
  auto total = reduce_sum(p);
  const std::string handle = CreateSession(g.ToGraphDef());
  tfwire::MakeCallableRequest make;
  make.set_session_handle(handle);
  make.mutable_options()->add_feed("p:0");
  make.mutable_options()->add_fetch(total.name());
  tfwire::MakeCallableResponse made;
  ASSERT_OK(CallMaster("MakeCallable", make, &made));

  tfwire::RunCallableRequest run;
  run.set_session_handle(handle);
  run.set_handle(made.handle());
  tfwire::RunCallableResponse out;
  EXPECT_STATUS(CallMaster("RunCallable", run, &out), absl::StatusCode::kInvalidArgument,
                "the callable takes 1 feeds, the call gave 0");
  *run.add_feed() = TensorToProto(testing::F32({3}, {1, 2, 4}));
  ASSERT_OK(CallMaster("RunCallable", run, &out));
  ASSERT_EQ(out.fetch_size(), 1);
  EXPECT_EQ(TensorFromProto(out.fetch(0))->scalar<float>(), 7.0f);

  tfwire::ReleaseCallableRequest release;
  release.set_session_handle(handle);
  release.set_handle(made.handle());
  tfwire::ReleaseCallableResponse released;
  ASSERT_OK(CallMaster("ReleaseCallable", release, &released));
  EXPECT_STATUS(CallMaster("RunCallable", run, &out), absl::StatusCode::kInvalidArgument,
                "(released or never made)");
}

TEST_F(TfMasterServiceTest, ListsEveryTaskDeviceAsTensorFlowDoes) {
  tfwire::ListDevicesResponse resp;
  ASSERT_OK(CallMaster("ListDevices", tfwire::ListDevicesRequest(), &resp));
  ASSERT_EQ(resp.local_device_size(), 1);
  EXPECT_EQ(resp.local_device(0).name(), "/job:local/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(resp.local_device(0).device_type(), "CPU");
  EXPECT_NE(resp.local_device(0).incarnation(), 0u);
  ASSERT_EQ(resp.remote_device_size(), 1);
  EXPECT_EQ(resp.remote_device(0).name(), "/job:local/replica:0/task:1/device:CPU:0");
}

TEST_F(TfMasterServiceTest, RefusesWhatItDoesNotServeByName) {
  tfwire::CloseSessionResponse ignored;
  tfwire::PartialRunSetupRequest setup;
  EXPECT_STATUS(CallMaster("PartialRunSetup", setup, &ignored), absl::StatusCode::kUnimplemented,
                "partial runs (Session.partial_run_setup) are not supported by tensorweave");
  EXPECT_STATUS(Call("/tensorflow.WorkerService/CreateWorkerSession", tfwire::CloseSessionRequest(), &ignored),
                absl::StatusCode::kUnimplemented, "a tensorweave task does not serve TensorFlow's WorkerService");
  EXPECT_STATUS(CallMaster("Frobnicate", tfwire::CloseSessionRequest(), &ignored), absl::StatusCode::kUnimplemented,
                "tensorweave does not serve /tensorflow.MasterService/Frobnicate");
  tfwire::ResetRequest reset;
  reset.add_device_filters("/job:local");
  EXPECT_STATUS(CallMaster("Reset", reset, &ignored), absl::StatusCode::kUnimplemented, "device_filters");
  tfwire::RunStepRequest bad;
  bad.set_session_handle("nope");
  bad.add_fetch("x:0");
  tfwire::RunStepResponse resp;
  EXPECT_STATUS(CallMaster("RunStep", bad, &resp), absl::StatusCode::kNotFound, "session 'nope' does not exist");
}

TEST_F(TfMasterServiceTest, ARequestThatIsNotTheMessageIsInvalidArgument) {
  // Field 1 (session_handle) announced as 100 bytes long with 3 present.
  grpc::ByteBuffer junk;
  const char bytes[] = {0x0a, 0x64, 'a', 'b', 'c'};
  grpc::Slice slice(bytes, sizeof(bytes));
  junk = grpc::ByteBuffer(&slice, 1);
  grpc::GenericStub stub(channel_);
  grpc::ClientContext ctx;
  grpc::ByteBuffer reply;
  absl::Notification done;
  grpc::Status status;
  stub.UnaryCall(&ctx, std::string(kTfMasterServicePrefix) + "CreateSession", grpc::StubOptions(), &junk, &reply,
                 [&](grpc::Status s) {
                   status = s;
                   done.Notify();
                 });
  done.WaitForNotification();
  EXPECT_STATUS(FromGrpcStatus(status, "master"), absl::StatusCode::kInvalidArgument,
                "/tensorflow.MasterService/CreateSession: the request is not a valid CreateSessionRequest message");
}

TEST_F(TfMasterServiceTest, ResetWithNoContainerClearsTheDefaultOne) {
  Graph g;
  Variable v(g, constant(g, 3.0f), "v");
  const std::string handle = CreateSession(g.ToGraphDef());
  auto run = [&](const std::string& fetch, const std::string& target) {
    tfwire::RunStepRequest req;
    req.set_session_handle(handle);
    if (!fetch.empty()) req.add_fetch(fetch);
    if (!target.empty()) req.add_target(target);
    tfwire::RunStepResponse resp;
    return CallMaster("RunStep", req, &resp);
  };
  ASSERT_OK(run("", v.initializer().name()));
  ASSERT_OK(run(v.read().name(), ""));
  tfwire::ResetResponse reset;
  ASSERT_OK(CallMaster("Reset", tfwire::ResetRequest(), &reset));
  // The variable went with its container.
  EXPECT_STATUS(run(v.read().name(), ""), absl::StatusCode::kFailedPrecondition, "variable 'v' is uninitialized");
}

// TensorFlow's clients' replies count against the server's reply budget too.
TEST(TfMasterServiceBudgetTest, ARunStepReplyOverTheBudgetIsRefused) {
  ServerOptions options;
  options.max_pending_reply_bytes = 16 << 10;
  auto cluster = StartInProcessCluster("local", 1, options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto channel = MakeChannel(cluster->servers[0]->target().substr(7));
  auto call = [&](const std::string& name, const auto& req, auto* resp) {
    const std::string method = std::string(kTfMasterServicePrefix) + name;
    const grpc::internal::RpcMethod rpc(method.c_str(), grpc::internal::RpcMethod::NORMAL_RPC);
    grpc::ClientContext ctx;
    return grpc::internal::BlockingUnaryCall<std::decay_t<decltype(req)>, std::decay_t<decltype(*resp)>,
                                             google::protobuf::MessageLite, google::protobuf::MessageLite>(
        channel.get(), rpc, &ctx, req, resp);
  };
  Graph g;
  auto big = zeros(g, TensorShape({8192}));  // 32 KiB
  auto small = constant(g, 1.0f);
  tfwire::CreateSessionRequest create;
  *create.mutable_graph_def() = g.ToGraphDef();
  tfwire::CreateSessionResponse created;
  ASSERT_TRUE(call("CreateSession", create, &created).ok());
  tfwire::RunStepRequest req;
  req.set_session_handle(created.session_handle());
  req.add_fetch(big.name());
  tfwire::RunStepResponse resp;
  grpc::Status s = call("RunStep", req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  EXPECT_NE(s.error_message().find("(--max_pending_reply_bytes)"), std::string::npos) << s.error_message();
  req.clear_fetch();
  req.add_fetch(small.name());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(call("RunStep", req, &resp).ok()) << i;
}

TEST(TfWireProtoTest, RegisteredUnderTensorweaveInAPackageOfOurs) {
  // TensorFlow's own protos may be registered in the same process: nothing of ours is
  // named tensorflow.*, and no service descriptor is registered for the served paths.
  const google::protobuf::FileDescriptor* file = tfwire::RunStepRequest::descriptor()->file();
  EXPECT_EQ(file->name(), "tensorweave/proto/tf_master.proto");
  EXPECT_EQ(file->package(), "tensorweave.tfwire");
  EXPECT_EQ(file->service_count(), 0);
  EXPECT_EQ(google::protobuf::DescriptorPool::generated_pool()->FindServiceByName("tensorflow.MasterService"), nullptr);
}

// Our client speaking TensorFlow's protocol, against our own service of it.
TEST_F(TfMasterServiceTest, TheTensorFlowProtocolClientRunsAndExtendsAGraph) {
  std::unique_ptr<SessionInterface> session = NewTfMasterSession(channel_, "master", SessionOptions());
  ASSERT_OK(session->Extend(Graph238()));
  std::vector<Tensor> out;
  ASSERT_OK(session->Run({}, {"Add_1:0", "Sub:0"}, {}, &out, nullptr));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].scalar<int32_t>(), 238);
  EXPECT_EQ(out[1].scalar<int32_t>(), -64);
  Graph more;
  constant(more, 7, "seven");
  ASSERT_OK(session->Extend(more.ToGraphDef()));
  ASSERT_OK(session->Run({}, {"seven:0"}, {}, &out, nullptr));
  EXPECT_EQ(out[0].scalar<int32_t>(), 7);
  EXPECT_STATUS(session->Run({}, {"nothing:0"}, {}, &out, nullptr), absl::StatusCode::kInvalidArgument, "nothing");
  EXPECT_EQ(session->ListDevices().size(), 2u);
  ASSERT_OK(session->Close());
}

}  // namespace
}  // namespace tw
