// What an outside client (a buggy one, or an attacker's) sends to real `tw server`
// processes through the generated stubs (issue 14): each request is refused with a clear
// error, and the task keeps serving.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

#include <grpcpp/generic/generic_stub.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/strings/str_replace.h"
#include "core/proto_namespace.h"
#include "distributed/rpc/grpc_util.h"
#include "graph/graph_def_import.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/proto/master.grpc.pb.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "tensorweave/tensorweave.h"
#include "testing/command_util.h"
#include "testing/local_cluster.h"
#include "testing/test_util.h"

namespace tw {
namespace {

const std::string kTw = std::string(TW_BINARY_DIR) + "/tools/tw";
constexpr char kTask0Cpu[] = "/job:local/replica:0/task:0/device:CPU:0";

// A GraphDef from text; every node's text in one string (node { ... } node { ... }).
GraphDef GraphText(const std::string& text) {
  auto def = ParseGraphDef(text, /*text=*/true);
  EXPECT_TRUE(def.ok()) << def.status();
  return def.ok() ? *def : GraphDef();
}

std::string FloatConst(const std::string& name, float value) {
  return absl::StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } ",
                      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: ", value,
                      " } } } }\n");
}

// Fill(dims, 1.5): a float tensor of `elements` elements.
std::string FloatFill(const std::string& name, int64_t elements) {
  return absl::StrCat(
      "node { name: '", name, "_dims' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } ",
      "attr { key: 'value' value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 1 } } int64_val: ", elements,
      " } } } }\n", FloatConst(name + "_value", 1.5f), "node { name: '", name, "' op: 'Fill' input: '", name,
      "_dims' input: '", name, "_value' attr { key: 'T' value { type: DT_FLOAT } } ",
      "attr { key: 'index_type' value { type: DT_INT64 } } }\n");
}

class HostileClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = testing::LocalCluster::Start({{"local", 1}}, kTw);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    auto channel = MakeChannel(*cluster_->spec().address("local", 0));
    master_ = MasterService::NewStub(channel);
    worker_ = WorkerService::NewStub(channel);
    channel_ = channel;
  }

  // `bytes` sent as the request of `method` ("/tensorweave.MasterService/RunStep").
  grpc::Status CallWithBytes(const std::string& method, const std::string& bytes) {
    grpc::GenericStub stub(channel_);
    grpc::ClientContext ctx;
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1), response;
    absl::Notification done;
    grpc::Status status;
    stub.UnaryCall(&ctx, method, grpc::StubOptions(), &request, &response, [&](grpc::Status s) {
      status = std::move(s);
      done.Notify();
    });
    done.WaitForNotification();
    return status;
  }

  grpc::Status CreateSession(const GraphDef& def, CreateSessionResponse* resp) {
    grpc::ClientContext ctx;
    CreateSessionRequest req;
    *req.mutable_graph_def() = def;
    return master_->CreateSession(&ctx, req, resp);
  }
  grpc::Status Extend(const std::string& handle, const GraphDef& def, int64_t version, ExtendSessionResponse* resp) {
    grpc::ClientContext ctx;
    ExtendSessionRequest req;
    req.set_session_handle(handle);
    *req.mutable_graph_def() = def;
    req.set_current_graph_version(version);
    return master_->ExtendSession(&ctx, req, resp);
  }
  grpc::Status RunStep(const RunStepRequest& req, RunStepResponse* resp) {
    grpc::ClientContext ctx;
    return master_->RunStep(&ctx, req, resp);
  }
  grpc::Status RunGraph(const RunGraphRequest& req, RunGraphResponse* resp) {
    grpc::ClientContext ctx;
    return worker_->RunGraph(&ctx, req, resp);
  }
  grpc::Status RegisterGraph(const GraphDef& def, RegisterGraphResponse* resp) {
    grpc::ClientContext ctx;
    RegisterGraphRequest req;
    req.set_session_handle("hostile");
    *req.mutable_graph_def() = def;
    return worker_->RegisterGraph(&ctx, req, resp);
  }

  // The task still answers and runs a step of its own.
  void ExpectTaskServes() {
    grpc::ClientContext ctx;
    GetStatusResponse status;
    ASSERT_TRUE(worker_->GetStatus(&ctx, GetStatusRequest(), &status).ok());
    CreateSessionResponse session;
    ASSERT_TRUE(CreateSession(GraphText(FloatConst("c", 7)), &session).ok());
    RunStepRequest req;
    req.set_session_handle(session.session_handle());
    req.add_fetch("c");
    RunStepResponse resp;
    ASSERT_TRUE(RunStep(req, &resp).ok());
    ASSERT_EQ(resp.tensor_size(), 1);
    auto c = TensorFromProto(resp.tensor(0).tensor());
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->scalar<float>(), 7.0f);
  }

  std::unique_ptr<testing::LocalCluster> cluster_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<MasterService::Stub> master_;
  std::unique_ptr<WorkerService::Stub> worker_;
};

void ExpectError(const grpc::Status& s, grpc::StatusCode code, const std::string& part) {
  EXPECT_EQ(s.error_code(), code) << s.error_message();
  EXPECT_NE(s.error_message().find(part), std::string::npos) << s.error_message();
}

// Items 1-2, 5: internal ops in a client's graph crashed the task (an _Arg fetched, a
// _Retval with a huge index) or left its tensors on the task (a _Send).
TEST_F(HostileClientTest, InternalOpsInAClientGraphAreRefusedNamingTheNode) {
  CreateSessionResponse session;
  ExpectError(CreateSession(GraphText("node { name: 'a' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } "
                                  "attr { key: 'index' value { i: 3 } } }"),
                            &session),
              grpc::StatusCode::INVALID_ARGUMENT, "node 'a' (_Arg): op '_Arg' is internal");
  ExpectError(CreateSession(GraphText(FloatConst("c", 1) +
                                  "node { name: 'r' op: '_Retval' input: 'c' attr { key: 'T' value { type: DT_FLOAT } } "
                                  "attr { key: 'index' value { i: 1000000 } } }"),
                            &session),
              grpc::StatusCode::INVALID_ARGUMENT, "node 'r' (_Retval)");
  ASSERT_TRUE(CreateSession(GraphText(FloatConst("c", 1)), &session).ok());
  ExtendSessionResponse extended;
  ExpectError(Extend(session.session_handle(),
                     GraphText("node { name: 's' op: '_Send' input: 'c' attr { key: 'T' value { type: DT_FLOAT } } "
                           "attr { key: 'tensor_name' value { s: 'x' } } "
                           "attr { key: 'send_device' value { s: '/job:local/task:0' } } "
                           "attr { key: 'recv_device' value { s: '/job:local/task:0' } } }"),
                     0, &extended),
              grpc::StatusCode::INVALID_ARGUMENT, "node 's' (_Send): op '_Send' is internal");
  ExpectTaskServes();
  // Local sessions (tw run without a target) refuse them the same way.
  const std::string file = ::testing::TempDir() + "/client_arg.pbtxt";
  std::ofstream(file) << "node { name: 'a' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } "
                         "attr { key: 'index' value { i: 0 } } }";
  auto r = testing::RunCommand(kTw + " run --graph " + file + " --fetch a");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("node 'a' (_Arg): op '_Arg' is internal"), std::string::npos) << r.output;
}

// Items 2 and 4: a worker checks the slot indexes of a graph it registers, and the dtype
// and shape of every tensor it is sent (a bool[4096] sent for a float _Arg returned heap
// contents).
TEST_F(HostileClientTest, WorkerChecksSlotIndexesAndWhatItIsSent) {
  const std::string device = absl::StrCat(" device: '", kTask0Cpu, "' ");
  RegisterGraphResponse registered;
  ExpectError(RegisterGraph(GraphText(absl::StrCat(
                                "node { name: 'c' op: 'Const'", device,
                                "attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value { tensor { "
                                "dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }\n"
                                "node { name: 'r' op: '_Retval' input: 'c'",
                                device,
                                "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' value { i: 1000000 } } "
                                "}")),
                          &registered),
              grpc::StatusCode::INVALID_ARGUMENT, "node 'r' (_Retval): index 1000000 is out of range");
  // arg:0 (float [4]) + itself -> ret:0.
  ASSERT_TRUE(RegisterGraph(GraphText(absl::StrCat(
                                "node { name: 'a' op: '_Arg'", device,
                                "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' value { i: 0 } } "
                                "attr { key: 'shape' value { shape { dim { size: 4 } } } } }\n"
                                "node { name: 'sum' op: 'Add' input: 'a' input: 'a'",
                                device,
                                "attr { key: 'T' value { type: DT_FLOAT } } }\n"
                                "node { name: 'r' op: '_Retval' input: 'sum'",
                                device, "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' value { i: 0 } } }")),
                            &registered)
                  .ok());
  auto request = [&](const Tensor& sent, int64_t step_id) {
    RunGraphRequest req;
    req.set_graph_handle(registered.graph_handle());
    req.set_step_id(step_id);
    NamedTensor* arg = req.add_send();
    arg->set_name("arg:0");
    *arg->mutable_tensor() = TensorToProto(sent);
    // Asked 300 times, returned once.
    for (int i = 0; i < 300; ++i) req.add_recv_key("ret:0");
    return req;
  };
  RunGraphResponse resp;
  ExpectError(RunGraph(request(testing::Bool({4096}, std::vector<bool>(4096, true)), 1), &resp),
              grpc::StatusCode::INVALID_ARGUMENT, "'arg:0' is bool but the graph's _Arg takes float32");
  ExpectError(RunGraph(request(testing::F32({3}, {1, 2, 3}), 2), &resp), grpc::StatusCode::INVALID_ARGUMENT,
              "'arg:0' has shape [3] but the graph's _Arg takes [4]");
  RunGraphRequest nothing_sent = request(testing::F32({4}, {1, 2, 3, 4}), 3);
  nothing_sent.clear_send();
  ExpectError(RunGraph(nothing_sent, &resp), grpc::StatusCode::INVALID_ARGUMENT, "nothing is sent for arg:0");
  ASSERT_TRUE(RunGraph(request(testing::F32({4}, {1, 2, 3, 4}), 4), &resp).ok());
  ASSERT_EQ(resp.recv_size(), 1);
  EXPECT_EQ(resp.recv(0).name(), "ret:0");
  auto doubled = TensorFromProto(resp.recv(0).tensor());
  ASSERT_TRUE(doubled.ok()) << doubled.status();
  ASSERT_EQ(doubled->NumElements(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(doubled->flat<float>()[i], 2.0f * (i + 1));
  ExpectTaskServes();
}

// Item 3: a fetch asked for 300 times is returned once (300 copies of 8 MiB were a 2.4 GB
// reply, which aborted the task); a reply that cannot fit in one message is refused
// naming the fetches.
TEST_F(HostileClientTest, RepeatedFetchesAreSentOnceAndTooLargeARepliesFail) {
  CreateSessionResponse session;
  ASSERT_TRUE(CreateSession(GraphText(FloatFill("f", 2 << 20) + FloatFill("big", int64_t{300} << 20) +
                                  "node { name: 'copy' op: 'Identity' input: 'big' "
                                  "attr { key: 'T' value { type: DT_FLOAT } } }"),
                            &session)
                  .ok());
  RunStepRequest req;
  req.set_session_handle(session.session_handle());
  for (int i = 0; i < 300; ++i) req.add_fetch("f");
  RunStepResponse resp;
  ASSERT_TRUE(RunStep(req, &resp).ok());
  ASSERT_EQ(resp.tensor_size(), 1);
  EXPECT_EQ(resp.tensor(0).name(), "f");
  auto f = TensorFromProto(resp.tensor(0).tensor());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->NumElements(), 2 << 20);
  EXPECT_EQ(f->flat<float>()[12345], 1.5f);
  // 2 x 1.2 GiB (one buffer fetched under two names) cannot be one reply.
  RunStepRequest big;
  big.set_session_handle(session.session_handle());
  big.add_fetch("big");
  big.add_fetch("copy");
  resp.Clear();
  grpc::Status s = RunStep(big, &resp);
  ExpectError(s, grpc::StatusCode::RESOURCE_EXHAUSTED, "bytes one message can carry");
  ExpectError(s, grpc::StatusCode::RESOURCE_EXHAUSTED, "'big'");
  ExpectError(s, grpc::StatusCode::RESOURCE_EXHAUSTED, "'copy'");
  ExpectTaskServes();
  // Through the client library too: the same fetch twice gives two equal outputs.
  tw::Graph g;
  Output c = constant(g, 3.0f);
  Session client(g, cluster_->target("local", 0));
  std::vector<Tensor> out = client.run({c, c, c});
  ASSERT_EQ(out.size(), 3u);
  for (const Tensor& t : out) EXPECT_EQ(t.scalar<float>(), 3.0f);
}

// Item 12: ExtendSession is all or nothing and checks the graph version; closing an
// unknown session is an error.
TEST_F(HostileClientTest, ExtendSessionIsAtomicAndVersionedAndCloseChecksTheHandle) {
  CreateSessionResponse session;
  ASSERT_TRUE(CreateSession(GraphDef(), &session).ok());
  EXPECT_EQ(session.graph_version(), 0);
  ExtendSessionResponse extended;
  // [good, bad]: nothing is added.
  ExpectError(Extend(session.session_handle(),
                     GraphText(FloatConst("good", 1) +
                           "node { name: 'bad' op: 'Identity' input: 'good' attr { key: 'T' value { type: DT_INT32 } } }"),
                     0, &extended),
              grpc::StatusCode::INVALID_ARGUMENT, "node 'bad' (Identity)");
  ExpectError(Extend(session.session_handle(), GraphText(FloatConst("good", 1)), 5, &extended), grpc::StatusCode::ABORTED,
              "current graph version is 0 but the caller expected 5");
  // "good" is free: the failed extension left nothing behind.
  ASSERT_TRUE(Extend(session.session_handle(), GraphText(FloatConst("good", 1)), 0, &extended).ok());
  EXPECT_EQ(extended.new_graph_version(), 1);
  ExpectError(Extend(session.session_handle(), GraphText(FloatConst("next", 2)), 0, &extended), grpc::StatusCode::ABORTED,
              "current graph version is 1");
  grpc::ClientContext ctx;
  CloseSessionRequest close;
  close.set_session_handle("no-such-session");
  CloseSessionResponse closed;
  ExpectError(master_->CloseSession(&ctx, close, &closed), grpc::StatusCode::NOT_FOUND,
              "session 'no-such-session' does not exist");
  close.set_session_handle(session.session_handle());
  grpc::ClientContext ctx2;
  EXPECT_TRUE(master_->CloseSession(&ctx2, close, &closed).ok());
  grpc::ClientContext ctx3;
  EXPECT_EQ(master_->CloseSession(&ctx3, close, &closed).error_code(), grpc::StatusCode::NOT_FOUND);
  ExpectTaskServes();
}

// Item 15: bytes that are not protobuf got UNIMPLEMENTED or INTERNAL with an empty
// message, on sync and callback methods alike.
TEST_F(HostileClientTest, BytesThatAreNotProtobufAreNamedAsSuch) {
  const std::string garbage("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
  for (const char* method : {"/tensorweave.MasterService/RunStep", "/tensorweave.MasterService/CreateSession",
                             "/tensorweave.WorkerService/RegisterGraph", "/tensorweave.WorkerService/RunGraph"}) {
    const std::string name = std::string(method).substr(std::string(method).rfind('/') + 1);
    ExpectError(CallWithBytes(method, garbage), grpc::StatusCode::INVALID_ARGUMENT,
                "cannot parse " + name + "Request");
  }
  // A method that exists, with bytes that parse, still works through the same path.
  GetStatusRequest status_request;
  EXPECT_TRUE(CallWithBytes("/tensorweave.WorkerService/GetStatus", status_request.SerializeAsString()).ok());
  ExpectTaskServes();
}

// Item 16: a 1 MB session handle or device string echoed in an error made the client's
// gRPC refuse the reply ("received initial metadata size exceeds limit").
TEST_F(HostileClientTest, LongInputEchoedInAnErrorIsCut) {
  const std::string huge(1 << 20, 'x');
  RunStepRequest req;
  req.set_session_handle(huge);
  req.add_fetch("c");
  RunStepResponse resp;
  grpc::Status s = RunStep(req, &resp);
  ExpectError(s, grpc::StatusCode::NOT_FOUND, "does not exist (closed or never created)");
  EXPECT_NE(s.error_message().find("... (1048576 bytes)"), std::string::npos) << s.error_message().size();
  EXPECT_LT(s.error_message().size(), 1000u);
  // A device string reaches the placer's message whole: cut at the transport.
  CreateSessionResponse session;
  ASSERT_TRUE(CreateSession(GraphText(absl::StrReplaceAll(FloatConst("c", 1), {{"op: 'Const'", "op: 'Const' device: '/job:" + huge + "'"}})), &session).ok());
  req.set_session_handle(session.session_handle());
  s = RunStep(req, &resp);
  EXPECT_NE(s.error_code(), grpc::StatusCode::OK);
  EXPECT_NE(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message().substr(0, 200);
  EXPECT_LE(s.error_message().size(), 4200u);
  EXPECT_NE(s.error_message().find("bytes cut"), std::string::npos) << s.error_message().substr(0, 200);
  ExpectTaskServes();
}

// Item 17: messages that read as a contradiction or named a dtype by its number, and
// `tw server --help`.
TEST_F(HostileClientTest, MessagesSayWhatIsWrong) {
  RegisterGraphResponse registered;
  ExpectError(RegisterGraph(GraphText(absl::StrReplaceAll(FloatConst("c", 1), {{"op: 'Const'", "op: 'Const' device: '/job:local/task:0'"}})), &registered),
              grpc::StatusCode::INVALID_ARGUMENT,
              "node 'c' (Const): device '/job:local/task:0' is not the full name of a device of task "
              "/job:local/replica:0/task:0 (its devices: /job:local/replica:0/task:0/device:CPU:0)");
  CreateSessionResponse session;
  // 14: DT_BFLOAT16.
  ExpectError(CreateSession(GraphText("node { name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: 14 } } }"), &session),
              grpc::StatusCode::INVALID_ARGUMENT, "attr 'dtype' is DT_BFLOAT16 (14), which tensorweave does not support");
  for (const char* command : {"server", "run", "cluster"}) {
    auto r = testing::RunCommand(kTw + " " + command + " --help");
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.output;
    EXPECT_NE(r.output.find("tw server"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("needs a value"), std::string::npos) << r.output;
  }
}

// Items 5 and 7: what a client leaves on a worker is capped or expires. RecvTensors without
// keys left a step entry per call; a graph's sent tensor that nobody receives kept its step
// forever; RegisterGraph took any number of graphs, with no session or a made-up one.
class HostileClientLimitsTest : public HostileClientTest {
 protected:
  void SetUp() override {
    auto cluster = testing::LocalCluster::Start({{"local", 1}}, kTw, {"--idle_step_timeout_ms=300", "--max_registered_graphs=3"});
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    channel_ = MakeChannel(*cluster_->spec().address("local", 0));
    master_ = MasterService::NewStub(channel_);
    worker_ = WorkerService::NewStub(channel_);
  }
  GetStatusResponse Status() {
    grpc::ClientContext ctx;
    GetStatusResponse status;
    EXPECT_TRUE(worker_->GetStatus(&ctx, GetStatusRequest(), &status).ok());
    return status;
  }
};

TEST_F(HostileClientLimitsTest, StepsExpireAndRegisteredGraphsAreCapped) {
  for (int i = 0; i < 50; ++i) {
    grpc::ClientContext ctx;
    RecvTensorsRequest req;
    req.set_step_id(1000 + i);
    auto reader = worker_->RecvTensors(&ctx, req);
    RecvTensorChunk chunk;
    while (reader->Read(&chunk)) {
    }
    ASSERT_TRUE(reader->Finish().ok());
  }
  EXPECT_EQ(Status().active_steps(), 0);

  const std::string device = absl::StrCat(" device: '", kTask0Cpu, "' ");
  const std::string c = absl::StrReplaceAll(FloatConst("c", 1), {{"op: 'Const'", "op: 'Const'" + device}});
  RegisterGraphResponse sends, constant;
  // c is sent to a receiver that never comes.
  ASSERT_TRUE(RegisterGraph(GraphText(absl::StrCat(c, "node { name: 's' op: '_Send' input: 'c'", device,
                                                   "attr { key: 'T' value { type: DT_FLOAT } } "
                                                   "attr { key: 'tensor_name' value { s: 'x' } } "
                                                   "attr { key: 'send_device' value { s: '", kTask0Cpu, "' } } "
                                                   "attr { key: 'recv_device' value { s: '", kTask0Cpu, "' } } }")),
                            &sends).ok());
  ASSERT_TRUE(RegisterGraph(GraphText(c), &constant).ok());
  auto run = [&](const RegisterGraphResponse& graph, int64_t step_id) {
    RunGraphRequest req;
    req.set_graph_handle(graph.graph_handle());
    req.set_step_id(step_id);
    RunGraphResponse resp;
    return RunGraph(req, &resp);
  };
  ASSERT_TRUE(run(sends, 1).ok());
  EXPECT_EQ(Status().active_steps(), 1);  // Its sent tensor waits for a receiver.
  absl::SleepFor(absl::Milliseconds(700));
  ASSERT_TRUE(run(constant, 2).ok());  // Any step's arrival sweeps the idle ones.
  EXPECT_EQ(Status().active_steps(), 0);

  RegisterGraphResponse third, fourth;
  ASSERT_TRUE(RegisterGraph(GraphText(c), &third).ok());
  ExpectError(RegisterGraph(GraphText(c), &fourth), grpc::StatusCode::RESOURCE_EXHAUSTED,
              "already holds 3 registered graphs, its limit (--max_registered_graphs)");
  {
    grpc::ClientContext ctx;
    DeregisterGraphRequest req;
    req.set_graph_handle(third.graph_handle());
    DeregisterGraphResponse resp;
    ASSERT_TRUE(worker_->DeregisterGraph(&ctx, req, &resp).ok());
  }
  EXPECT_TRUE(RegisterGraph(GraphText(c), &fourth).ok());
  {
    grpc::ClientContext ctx;
    RegisterGraphRequest req;
    *req.mutable_graph_def() = GraphText(c);
    RegisterGraphResponse resp;
    ExpectError(worker_->RegisterGraph(&ctx, req, &resp), grpc::StatusCode::INVALID_ARGUMENT,
                "RegisterGraph needs the session_handle");
  }
  EXPECT_EQ(Status().registered_graphs(), 3);
}

}  // namespace
}  // namespace tw
