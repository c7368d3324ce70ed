// A session's step_timeout_ms (TF's ConfigProto.operation_timeout_in_ms, which TensorFlow's
// clients send in CreateSession) is enforced by the master on real `tw server` processes
// (issue 14 item 10): a step that runs longer fails with DeadlineExceeded naming the task
// still running, and is cancelled there, so it cannot take a later step's queue element.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "core/proto_namespace.h"
#include "distributed/rpc/grpc_util.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/proto/master.grpc.pb.h"
#include "tensorweave/tensorweave.h"
#include "testing/local_cluster.h"

namespace tw {
namespace {

const std::string kTw = std::string(TW_BINARY_DIR) + "/tools/tw";

TEST(StepTimeoutTest, MasterEndsAStepPastTheSessionsTimeoutNamingTheSlowTask) {
  auto cluster = testing::LocalCluster::Start({{"local", 2}}, kTw);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Graph g;
  Output taken, sum;
  Operation put;
  {
    auto on = g.device("/job:local/task:1");
    FIFOQueue queue(g, -1, {DType::kFloat}, {PartialShape({})}, "", "q");
    taken = queue.dequeue()[0];
    put = queue.enqueue({constant(g, 5.0f)});
  }
  {
    auto on = g.device("/job:local/task:0");
    sum = taken + constant(g, 1.0f);
  }
  auto master = MasterService::NewStub(MakeChannel(*(*cluster)->spec().address("local", 0)));
  CreateSessionRequest create;
  *create.mutable_graph_def() = g.ToGraphDef();
  create.mutable_config()->set_step_timeout_ms(300);
  CreateSessionResponse session;
  {
    grpc::ClientContext ctx;
    ASSERT_TRUE(master->CreateSession(&ctx, create, &session).ok());
  }
  auto run = [&](const std::string& fetch, const std::string& target, RunStepResponse* resp) {
    grpc::ClientContext ctx;
    RunStepRequest req;
    req.set_session_handle(session.session_handle());
    if (!fetch.empty()) req.add_fetch(fetch);
    if (!target.empty()) req.add_target(target);
    return master->RunStep(&ctx, req, resp);
  };
  RunStepResponse resp;
  const absl::Time start = absl::Now();
  grpc::Status s = run(sum.name(), "", &resp);
  const absl::Duration took = absl::Now() - start;
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << s.error_message();
  EXPECT_NE(s.error_message().find("ran longer than the session's step_timeout_ms (300 ms"), std::string::npos)
      << s.error_message();
  EXPECT_NE(s.error_message().find("still running on /job:local/replica:0/task:1"), std::string::npos)
      << s.error_message();
  EXPECT_GE(took, absl::Milliseconds(290));
  EXPECT_LT(took, absl::Seconds(10));
  // The timed-out dequeue was cancelled on task 1: the element goes to the next step.
  ASSERT_TRUE(run("", put.name(), &resp).ok());
  s = run(sum.name(), "", &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(resp.tensor_size(), 1);
  auto value = TensorFromProto(resp.tensor(0).tensor());
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(value->scalar<float>(), 6.0f);
}

}  // namespace
}  // namespace tw
