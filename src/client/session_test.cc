// Session behaviour through the client API: the seeds' programs, pruning, the prepared
// signature cache, feeds, variables across runs, graph extension, placement.
#include "tensorweave/session.h"

#include <gtest/gtest.h>

#include <sstream>

#include "graph/graph.h"
#include "runtime/local_session.h"
#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::F32;

TEST(SessionTest, SeedProgram238) {
  Graph g;
  auto x = constant(g, 2);
  auto y = (x + 300) + (x - 66);
  Session sess(g);
  Tensor out = sess.run(y);
  EXPECT_EQ(out.dtype(), DType::kInt32);
  EXPECT_EQ(out.shape(), TensorShape());
  EXPECT_EQ(out.scalar<int32_t>(), 238);
}

TEST(SessionTest, FeedsReplacePlaceholdersAndAreChecked) {
  Graph g;
  auto x = placeholder(g, DType::kFloat, PartialShape({-1, 2}), "x");
  auto y = x * 2.0;
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(y, {{x, F32({1, 2}, {1, 2})}}), F32({1, 2}, {2, 4}));
  try {
    sess.run(y, {{x, F32({3}, {1, 2, 3})}});
    FAIL() << "a feed of the wrong shape was accepted";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument, "feed 'x:0' has shape [3]");
  }
  try {
    sess.run(y, {{x, testing::I32({1, 2}, {1, 2})}});
    FAIL() << "a feed of the wrong dtype was accepted";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument, "is int32 but the graph expects float32");
  }
  try {
    sess.run(y);
    FAIL() << "an unfed placeholder ran";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument, "node 'x' (Placeholder)");
  }
}

TEST(SessionTest, PrunesToWhatTheFetchNeeds) {
  Graph g;
  auto unfed = placeholder(g, DType::kFloat, PartialShape({}), "unfed");
  auto broken = unfed + 1.0;  // Would fail if run: nothing feeds `unfed`.
  auto ok = constant(g, 5.0f) * 2.0;
  Session sess(g);
  EXPECT_EQ(sess.run(ok).scalar<float>(), 10.0f);
  (void)broken;
}

TEST(SessionTest, FeedingAnIntermediateTensorCutsItsInputs) {
  Graph g;
  auto unfed = placeholder(g, DType::kFloat, PartialShape({}), "unfed");
  auto mid = unfed * 3.0;
  auto out = mid + 1.0;
  Session sess(g);
  EXPECT_EQ(sess.run(out, {{mid, Tensor::Scalar(4.0f)}}).scalar<float>(), 5.0f);
}

TEST(SessionTest, PreparedSignaturesAreCached) {
  Graph g;
  auto x = placeholder(g, DType::kFloat, PartialShape({}), "x");
  auto y = x + 1.0;
  auto z = x * 2.0;
  LocalSession session(SessionOptions{});
  ASSERT_TRUE(session.Extend(g.ToGraphDef()).ok());
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(session.Run({{"x", Tensor::Scalar(1.0f)}}, {y.name()}, {}, &out).ok());
  }
  EXPECT_EQ(session.num_prepared(), 1);
  ASSERT_TRUE(session.Run({{"x:0", Tensor::Scalar(1.0f)}}, {y.name()}, {}, &out).ok());
  EXPECT_EQ(session.num_prepared(), 1) << "x and x:0 are the same feed";
  ASSERT_TRUE(session.Run({{"x", Tensor::Scalar(1.0f)}}, {z.name()}, {}, &out).ok());
  EXPECT_EQ(session.num_prepared(), 2);
  EXPECT_EQ(out[0].scalar<float>(), 2.0f);
}

TEST(SessionTest, GraphCanGrowAfterTheSessionStarts) {
  Graph g;
  auto a = constant(g, 3.0f);
  Session sess(g);
  EXPECT_EQ(sess.run(a).scalar<float>(), 3.0f);
  auto b = a * a;  // Added after the first run.
  EXPECT_EQ(sess.run(b).scalar<float>(), 9.0f);
}

TEST(SessionTest, VariablesPersistAcrossRuns) {
  Graph g;
  Variable counter(g, constant(g, 0), "counter");
  auto increment = counter.assign_add(constant(g, 1));
  auto init = global_variables_initializer(g);
  Session sess(g);
  try {
    sess.run(counter.value());
    FAIL() << "read of an uninitialized variable succeeded";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kFailedPrecondition, "counter");
  }
  sess.run(init);
  for (int i = 0; i < 3; ++i) sess.run(increment);
  EXPECT_EQ(sess.run(counter.value()).scalar<int32_t>(), 3);
  EXPECT_EQ(global_variables(g).size(), 1u);
  EXPECT_EQ(global_variables(g)[0].name(), "counter");
}

TEST(SessionTest, ErrorsNameTheNode) {
  Graph g;
  auto a = constant(g, std::vector<float>{1, 2, 3}, TensorShape({3}), "a");
  auto b = placeholder(g, DType::kFloat, PartialShape::UnknownRank(), "b");
  auto c = add(a, b, "broken_add");
  Session sess(g);
  try {
    sess.run(c, {{b, F32({2}, {1, 2})}});
    FAIL() << "incompatible shapes were added";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument, "node 'broken_add' (Add)");
  }
}

TEST(SessionTest, GraphBuildingRejectsMismatchedDtypes) {
  Graph g;
  auto a = constant(g, 1.0f);
  auto b = constant(g, 1);
  EXPECT_THROW(a + b, StatusError);
}

TEST(SessionTest, NameAndDeviceScopesNestAndMerge) {
  Graph g;
  Output y;
  {
    auto ns = g.name_scope("layer");
    auto outer = g.device("/job:local");
    auto inner = g.device("/task:1/cpu:0");
    y = constant(g, 1.0f, "w");
  }
  EXPECT_EQ(y.op().name(), "layer/w");
  EXPECT_EQ(y.op().device(), "/job:local/task:1/device:CPU:0");
  EXPECT_THROW(g.device("/job:bad/whatever:1"), StatusError);
}

TEST(SessionTest, ControlDependenciesOrderEffects) {
  Graph g;
  Variable v(g, constant(g, 1.0f), "v");
  auto init = global_variables_initializer(g);
  auto update = v.assign(constant(g, 5.0f));
  Output read;
  {
    auto deps = g.control_dependencies({update});
    read = v.value();
  }
  Session sess(g);
  sess.run(init);
  EXPECT_EQ(sess.run(read).scalar<float>(), 5.0f);
}

TEST(SessionTest, UnknownDeviceIsAnErrorListingDevices) {
  Graph g;
  Output y;
  {
    auto on = g.device("/job:local/task:1");
    y = constant(g, 1.0f) + 1.0;
  }
  Session sess(g);
  try {
    sess.run(y);
    FAIL() << "placed on a device that does not exist";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument,
                  "Available devices: /job:localhost/replica:0/task:0/device:CPU:0");
  }
  SessionConfig soft;
  soft.allow_soft_placement = true;
  Session soft_sess(g, "", soft);
  EXPECT_EQ(soft_sess.run(y).scalar<float>(), 2.0f);
}

TEST(SessionTest, GpuRequestFallsBackOnlyWithSoftPlacement) {
  Graph g;
  Output y;
  {
    auto on = g.device("/gpu:0");
    y = constant(g, 2.0f) * 3.0;
  }
  Session strict(g);
  EXPECT_THROW(strict.run(y), StatusError);
  SessionConfig soft;
  soft.allow_soft_placement = true;
  Session soft_sess(g, "", soft);
  EXPECT_EQ(soft_sess.run(y).scalar<float>(), 6.0f);
}

TEST(SessionTest, UnsupportedTargetIsAClearError) {
  Graph g;
  EXPECT_THROW(Session(g, "http://nowhere"), StatusError);
}

}  // namespace
}  // namespace tw

namespace tw {
namespace {

TEST(SessionTest, VariablesInsideNameScopesAreFoundAgain) {
  Graph g;
  {
    auto ns = g.name_scope("layer");
    Variable w(g, constant(g, 1.0f), "w");
    EXPECT_EQ(w.name(), "layer/w");
    EXPECT_EQ(w.initializer().name(), "layer/w/Assign");
  }
  auto vars = global_variables(g);
  ASSERT_EQ(vars.size(), 1u);
  EXPECT_EQ(vars[0].name(), "layer/w");
  EXPECT_EQ(vars[0].read().op().name(), "layer/w/read");
}

}  // namespace
}  // namespace tw
