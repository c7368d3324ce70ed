// ServerOptions::limits, checked by real servers reached over gRPC.
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <thread>

#include "absl/time/clock.h"
#include "core/net_util.h"
#include "tensorweave/proto/master.grpc.pb.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

InProcessCluster StartWithLimits(const ResourceLimits& limits) {
  ServerOptions options;
  options.limits = limits;
  return ValueOrThrow(StartInProcessCluster("local", 1, options));
}

TEST(ResourceLimitsTest, FeedOverMaxTensorBytesIsRefusedNamingTheLimit) {
  ResourceLimits limits;
  limits.max_tensor_bytes = 1024;
  InProcessCluster cluster = StartWithLimits(limits);
  Graph g;
  auto x = placeholder(g, DType::kFloat, PartialShape({-1}), "x");
  auto sum = reduce_sum(x);
  Session sess(g, cluster.target(0));
  const Tensor small = ValueOrThrow(Tensor::FromVector<float>(std::vector<float>(256, 1.0f), TensorShape({256})));
  EXPECT_EQ(sess.run(sum, {{x, small}}).scalar<float>(), 256.0f);  // 1024 bytes: at the limit
  const Tensor big = ValueOrThrow(Tensor::FromVector<float>(std::vector<float>(257, 1.0f), TensorShape({257})));
  EXPECT_STATUS(ErrorOf([&] { sess.run(sum, {{x, big}}); }), absl::StatusCode::kResourceExhausted,
                "feed 'x:0': TensorProto: float32 [257] tensor of 1028 bytes is over the max_tensor_bytes limit of 1024");
}

TEST(ResourceLimitsTest, TensorReceivedOverTheLimitFailsTheStep) {
  // Task 1 may make what task 0 may not receive: each checks its own limits.
  const auto addresses = ValueOrThrow(FreeLoopbackAddresses({{"local", 2}}));
  const ClusterSpec spec = ValueOrThrow(ClusterSpec::FromJobs(addresses));
  std::vector<std::unique_ptr<Server>> servers;
  for (int64_t max_bytes : {int64_t{4096}, int64_t{1} << 20}) {
    ServerOptions options;
    options.limits.max_tensor_bytes = max_bytes;
    servers.push_back(ValueOrThrow(Server::Create(spec, "local", static_cast<int>(servers.size()), options)));
    ASSERT_TRUE(servers.back()->Start().ok());
  }
  Graph g;
  auto n = placeholder(g, DType::kInt32, PartialShape({}), "n");
  Output sum;
  {
    auto on = g.device("/job:local/task:1");
    auto big = g.AddOperation("Fill", "big", {reshape(n, Axes{1}), constant(g, 1.0f)}, {}).output(0);
    auto on0 = g.device("/job:local/task:0");
    sum = reduce_sum(big);
  }
  Session sess(g, servers[0]->target());
  EXPECT_EQ(sess.run(sum, {{n, Tensor::Scalar<int32_t>(1024)}}).scalar<float>(), 1024.0f);
  EXPECT_STATUS(ErrorOf([&] { sess.run(sum, {{n, Tensor::Scalar<int32_t>(1025)}}); }),
                absl::StatusCode::kResourceExhausted,
                "received tensor: float32 [1025] tensor of 4100 bytes is over the max_tensor_bytes limit of 4096");
  EXPECT_EQ(sess.run(sum, {{n, Tensor::Scalar<int32_t>(3)}}).scalar<float>(), 3.0f);
  for (auto& server : servers) server->Stop();
}

TEST(ResourceLimitsTest, GraphOverMaxNodesOrBytesIsRefused) {
  ResourceLimits limits;
  limits.max_graph_nodes = 4;
  limits.max_graph_bytes = 2000;
  InProcessCluster cluster = StartWithLimits(limits);
  Graph g;
  auto y = constant(g, 1.0f) + constant(g, 2.0f);
  Session sess(g, cluster.target(0));
  EXPECT_EQ(sess.run(y).scalar<float>(), 3.0f);
  // Extending counts the nodes the session already has.
  auto z = (y + 1.0f) * 2.0f;
  EXPECT_STATUS(ErrorOf([&] { sess.run(z); }), absl::StatusCode::kResourceExhausted,
                "graph of 7 nodes is over the max_graph_nodes limit of 4");

  Graph big;
  auto c = constant(big, std::vector<float>(1000, 1.0f), TensorShape({1000}));
  Session sess2(big, cluster.target(0));
  EXPECT_STATUS(ErrorOf([&] { sess2.run(c); }), absl::StatusCode::kResourceExhausted,
                "bytes is over the max_graph_bytes limit of 2000");
}

TEST(ResourceLimitsTest, HugeConstantShapeIsRefusedBeforeAllocation) {
  InProcessCluster cluster = ValueOrThrow(StartInProcessCluster("local", 1));
  // 2^40 floats (4 TiB) from one float_val: a few bytes on the wire. Sent raw, as a
  // hostile client would (the client library would refuse it first).
  GraphDef def;
  NodeDef* node = def.add_node();
  node->set_name("huge");
  node->set_op("Const");
  (*node->mutable_attr())["dtype"].set_type(DT_FLOAT);
  TensorProto* value = (*node->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_FLOAT);
  value->mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 20);
  value->mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 20);
  value->add_float_val(1.0f);
  auto stub = MasterService::NewStub(
      grpc::CreateChannel(cluster.target(0).substr(7), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  CreateSessionRequest req;
  *req.mutable_graph_def() = def;
  CreateSessionResponse resp;
  grpc::Status s = stub->CreateSession(&ctx, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(s.error_message().find("node 'huge' (Const): attr 'value': TensorProto: float32 [1048576,1048576] "
                                   "tensor of 4398046511104 bytes is over the max_tensor_bytes limit of 4294967296"),
            std::string::npos)
      << s.error_message();
}

TEST(ResourceLimitsTest, StepsOverMaxConcurrentStepsAreRefusedAndTheServerCarriesOn) {
  ResourceLimits limits;
  limits.max_concurrent_steps = 1;
  InProcessCluster cluster = StartWithLimits(limits);
  Graph g;
  FIFOQueue queue(g, 10, {DType::kFloat}, {PartialShape({})});
  auto waiting = queue.dequeue()[0];
  auto one = constant(g, 1.0f);
  Session blocked(g, cluster.target(0));
  Session other(g, cluster.target(0));
  absl::Status blocked_status;
  std::thread step([&] { blocked_status = ErrorOf([&] { blocked.run(waiting); }); });
  // Once the dequeue waits on the task, any other step is one too many (probing earlier
  // could take the only slot and get the dequeue refused instead).
  auto worker = WorkerService::NewStub(grpc::CreateChannel(cluster.spec.address("local", 0).value(),
                                                           grpc::InsecureChannelCredentials()));
  for (absl::Time deadline = absl::Now() + absl::Seconds(30); absl::Now() < deadline;) {
    grpc::ClientContext ctx;
    GetStatusResponse status;
    if (worker->GetStatus(&ctx, GetStatusRequest(), &status).ok() && status.active_steps() > 0) break;
    absl::SleepFor(absl::Milliseconds(5));
  }
  absl::Status refused;
  for (absl::Time deadline = absl::Now() + absl::Seconds(30); absl::Now() < deadline;) {
    refused = ErrorOf([&] { other.run(one); });
    if (!refused.ok()) break;
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_STATUS(refused, absl::StatusCode::kResourceExhausted,
                "step refused: 1 steps are running, the max_concurrent_steps limit is 1");
  blocked.close();  // Aborts the waiting step.
  step.join();
  EXPECT_FALSE(blocked_status.ok());
  EXPECT_EQ(other.run(one).scalar<float>(), 1.0f);
}

}  // namespace
}  // namespace tw
