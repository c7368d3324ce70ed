// Issue 14 item 6: a CreateSession the client cancels keeps no session, and sessions idle
// for longer than --session_gc_seconds are closed (TF1's session_gc). Real `tw server`s.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "distributed/rpc/grpc_util.h"
#include "tensorweave/proto/master.grpc.pb.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/tensorweave.h"
#include "testing/local_cluster.h"
#include "testing/test_util.h"

namespace tw {
namespace {

const std::string kTw = std::string(TW_BINARY_DIR) + "/tools/tw";

int64_t MasterSessions(const std::string& address) {
  auto stub = WorkerService::NewStub(MakeChannel(address));
  grpc::ClientContext ctx;
  GetStatusResponse resp;
  EXPECT_TRUE(stub->GetStatus(&ctx, GetStatusRequest(), &resp).ok());
  return resp.master_sessions();
}

// `n` float constants: a GraphDef that takes the master a while to import.
GraphDef ManyConsts(int n) {
  GraphDef def;
  for (int i = 0; i < n; ++i) {
    NodeDef* node = def.add_node();
    node->set_name(absl::StrCat("c", i));
    node->set_op("Const");
    (*node->mutable_attr())["dtype"].set_type(DT_FLOAT);
    TensorProto* value = (*node->mutable_attr())["value"].mutable_tensor();
    value->set_dtype(DT_FLOAT);
    value->mutable_tensor_shape();
    value->add_float_val(i);
  }
  return def;
}

TEST(SessionGcTest, ACancelledCreateSessionKeepsNoSession) {
  auto cluster = testing::LocalCluster::Start({{"local", 1}}, kTw);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string address = *(*cluster)->spec().address("local", 0);
  auto master = MasterService::NewStub(MakeChannel(address));
  CreateSessionRequest req;
  *req.mutable_graph_def() = ManyConsts(100000);
  // How long the import takes here, uncancelled (that session is closed again).
  absl::Duration import_time;
  {
    grpc::ClientContext ctx;
    CreateSessionResponse resp;
    const absl::Time start = absl::Now();
    ASSERT_TRUE(master->CreateSession(&ctx, req, &resp).ok());
    import_time = absl::Now() - start;
    grpc::ClientContext close_ctx;
    CloseSessionRequest close;
    close.set_session_handle(resp.session_handle());
    CloseSessionResponse closed;
    ASSERT_TRUE(master->CloseSession(&close_ctx, close, &closed).ok());
  }
  ASSERT_EQ(MasterSessions(address), 0);
  for (int i = 0; i < 5; ++i) {  // Each gives up while the master imports its graph.
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + import_time / 10));
    CreateSessionResponse resp;
    EXPECT_EQ(master->CreateSession(&ctx, req, &resp).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  }
  // Once the master got through the imports it would have kept them by: none is kept.
  absl::SleepFor(import_time * 6 + absl::Seconds(1));
  EXPECT_EQ(MasterSessions(address), 0);
}

TEST(SessionGcTest, IdleSessionsAreClosedAndBusyOnesKept) {
  auto cluster = testing::LocalCluster::Start({{"local", 1}}, kTw, {"--session_gc_seconds=1"});
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string address = *(*cluster)->spec().address("local", 0);
  const std::string target = (*cluster)->target("local", 0);
  Graph g;
  Output c = constant(g, 3.0f);
  FIFOQueue q(g, 10, {DType::kFloat}, {}, "q", "q");
  Operation enqueue = q.enqueue({c});
  Output dequeue = q.dequeue()[0];
  Session idle(g, target);
  EXPECT_TENSOR_EQ(idle.run(c), F32({}, {3.0f}));
  // A step that blocks for longer than the timeout keeps its session.
  Tensor dequeued;
  std::thread busy([&] {
    Session s(g, target);
    dequeued = s.run(dequeue);
  });
  absl::SleepFor(absl::Milliseconds(2500));
  {
    Session other(g, target);  // Its calls sweep the idle sessions.
    other.run(enqueue);
  }
  busy.join();
  EXPECT_TENSOR_EQ(dequeued, F32({}, {3.0f}));
  EXPECT_STATUS(ErrorOf([&] { idle.run(c); }), absl::StatusCode::kNotFound, "--session_gc_seconds");
  absl::SleepFor(absl::Milliseconds(1500));
  Session last(g, target);
  last.run(c);
  EXPECT_EQ(MasterSessions(address), 1);  // Only `last`.
}

}  // namespace
}  // namespace tw
