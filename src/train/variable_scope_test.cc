#include "tensorweave/variable_scope.h"

#include <gtest/gtest.h>

#include "tensorweave/session.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::F32;

TEST(VariableScopeTest, NestedScopesPrefixVariablesAndOps) {
  Graph g;
  Variable w;
  Output sum;
  {
    auto outer = variable_scope(g, "outer");
    EXPECT_EQ(get_variable_scope(g).name, "outer");
    {
      auto inner = variable_scope(g, "inner");
      EXPECT_EQ(get_variable_scope(g).name, "outer/inner");
      w = get_variable(g, "w", {2}, DType::kFloat, zeros_initializer());
      sum = w + w;
    }
    EXPECT_EQ(get_variable_scope(g).name, "outer");
  }
  EXPECT_EQ(get_variable_scope(g).name, "");
  EXPECT_EQ(w.name(), "outer/inner/w");
  EXPECT_EQ(w.initial_value().op().name(), "outer/inner/w/Initializer/zeros");
  EXPECT_EQ(sum.op().name(), "outer/inner/Add");  // Ops get the scope's name scope too.
  // A scope on another graph is independent.
  Graph other;
  auto s = variable_scope(g, "again");
  EXPECT_EQ(get_variable_scope(other).name, "");
  EXPECT_EQ(get_variable_scope(g).name, "again");
}

TEST(VariableScopeTest, VariableNamesIgnoreNameScopes) {
  Graph g;
  auto ns = g.name_scope("layer");
  Variable top = get_variable(g, "top", {}, DType::kFloat, ones_initializer());
  EXPECT_EQ(top.name(), "top");
  Variable scoped;
  {
    auto vs = variable_scope(g, "vs");
    scoped = get_variable(g, "w", {}, DType::kFloat, ones_initializer());
    EXPECT_EQ((scoped + scoped).op().name(), "layer/vs/Add");
  }
  EXPECT_EQ(scoped.name(), "vs/w");
  // The enclosing name scope is back in force.
  EXPECT_EQ((top + top).op().name(), "layer/Add");
}

TEST(VariableScopeTest, NameScopeCanBeAbsolute) {
  Graph g;
  auto a = g.name_scope("a");
  {
    auto root = g.name_scope("");
    EXPECT_EQ(constant(g, 1.0f, "c").op().name(), "c");
    auto exact = g.name_scope("x/y/");
    EXPECT_EQ(constant(g, 1.0f, "c").op().name(), "x/y/c");
  }
  EXPECT_EQ(constant(g, 1.0f, "c").op().name(), "a/c");
  EXPECT_STATUS(ErrorOf([&] { auto bad = g.name_scope("/"); }), absl::StatusCode::kInvalidArgument,
                "invalid name scope '/'");
}

TEST(VariableScopeTest, ReuseReturnsTheSameVariable) {
  Graph g;
  Variable w;
  {
    auto vs = variable_scope(g, "outer");
    w = get_variable(g, "w", {2, 3}, DType::kFloat, zeros_initializer());
  }
  auto vs = variable_scope(g, "outer", /*reuse=*/true);
  EXPECT_EQ(get_variable_scope(g).reuse, Reuse::kTrue);
  Variable again = get_variable(g, "w", {2, 3});
  EXPECT_EQ(again.handle().op().node(), w.handle().op().node());
  EXPECT_EQ(again.name(), "outer/w");
  EXPECT_EQ(global_variables(g).size(), 1u);
}

TEST(VariableScopeTest, ReuseVariablesTurnsReuseOnUntilTheScopeCloses) {
  Graph g;
  EXPECT_STATUS(ErrorOf([&] { reuse_variables(g); }), absl::StatusCode::kFailedPrecondition,
                "reuse_variables needs an open variable_scope");
  {
    auto vs = variable_scope(g, "tower");
    Variable w = get_variable(g, "w", {2}, DType::kFloat, zeros_initializer());
    {
      auto inner = variable_scope(g, "inner");
      reuse_variables(g);  // Only the inner scope.
    }
    EXPECT_EQ(get_variable_scope(g).reuse, Reuse::kFalse);
    reuse_variables(g);
    EXPECT_EQ(get_variable_scope(g).reuse, Reuse::kTrue);
    EXPECT_EQ(get_variable(g, "w", {2}).handle().op().node(), w.handle().op().node());
  }
  auto again = variable_scope(g, "tower");
  EXPECT_EQ(get_variable_scope(g).reuse, Reuse::kFalse);
}

TEST(VariableScopeTest, CreatingAnExistingNameWithoutReuseFails) {
  Graph g;
  auto vs = variable_scope(g, "outer");
  get_variable(g, "w", {2});
  EXPECT_STATUS(ErrorOf([&] { get_variable(g, "w", {2}); }), absl::StatusCode::kInvalidArgument,
                "Variable outer/w already exists, disallowed. Did you mean to set reuse=true or "
                "reuse=AUTO_REUSE in variable_scope?");
}

TEST(VariableScopeTest, ReusingAMissingNameFails) {
  Graph g;
  auto vs = variable_scope(g, "outer", true);
  EXPECT_STATUS(ErrorOf([&] { get_variable(g, "w", {2}); }), absl::StatusCode::kInvalidArgument,
                "Variable outer/w does not exist, or was not created with get_variable()");
  EXPECT_EQ(g.num_operations(), 0);  // Nothing half-made.
}

TEST(VariableScopeTest, VariablesNotMadeByGetVariableAreNotShared) {
  Graph g;
  Variable plain(g, constant(g, 1.0f), "outer/v");
  {
    auto vs = variable_scope(g, "outer", true);
    EXPECT_STATUS(ErrorOf([&] { get_variable(g, "v", {}); }), absl::StatusCode::kInvalidArgument,
                  "Variable outer/v does not exist, or was not created with get_variable()");
  }
  auto vs = variable_scope(g, "outer");
  EXPECT_STATUS(ErrorOf([&] { get_variable(g, "v", {}); }), absl::StatusCode::kInvalidArgument,
                "Variable outer/v cannot be created: the graph already has an operation named "
                "'outer/v'");
}

TEST(VariableScopeTest, AutoReuseCreatesThenReuses) {
  Graph g;
  std::vector<Variable> made;
  for (int i = 0; i < 2; ++i) {
    auto vs = variable_scope(g, "auto", AUTO_REUSE);
    made.push_back(get_variable(g, "w", {3}));
  }
  EXPECT_EQ(made[0].handle().op().node(), made[1].handle().op().node());
  EXPECT_EQ(global_variables(g).size(), 1u);
}

TEST(VariableScopeTest, ReuseIsInheritedByNestedScopes) {
  Graph g;
  {
    auto a = variable_scope(g, "a");
    auto b = variable_scope(g, "b");
    get_variable(g, "w", {});
  }
  auto a = variable_scope(g, "a", true);
  auto b = variable_scope(g, "b", false);  // Cannot turn reuse off inside a reusing scope.
  EXPECT_EQ(get_variable_scope(g).reuse, Reuse::kTrue);
  EXPECT_EQ(get_variable(g, "w", {}).name(), "a/b/w");
  {
    auto c = variable_scope(g, "c", AUTO_REUSE);
    EXPECT_EQ(get_variable_scope(g).reuse, Reuse::kAuto);
    auto d = variable_scope(g, "d");
    EXPECT_EQ(get_variable_scope(g).reuse, Reuse::kAuto);
  }
}

TEST(VariableScopeTest, ShapeOrDtypeMismatchOnReuseFails) {
  Graph g;
  {
    auto vs = variable_scope(g, "outer");
    get_variable(g, "w", {2}, DType::kFloat);
  }
  auto vs = variable_scope(g, "outer", true);
  EXPECT_STATUS(ErrorOf([&] { get_variable(g, "w", {3}); }), absl::StatusCode::kInvalidArgument,
                "Trying to share variable outer/w, but specified shape [3] and found shape [2].");
  EXPECT_STATUS(
      ErrorOf([&] { get_variable(g, "w", {2}, DType::kDouble); }),
      absl::StatusCode::kInvalidArgument,
      "Trying to share variable outer/w, but specified dtype float64 and found dtype float32.");
}

TEST(VariableScopeTest, TrainableAndCollections) {
  Graph g;
  Variable t = get_variable(g, "t", {2});
  Variable n = get_variable(g, "n", {2}, DType::kFloat, nullptr, /*trainable=*/false);
  ASSERT_EQ(global_variables(g).size(), 2u);
  EXPECT_EQ(global_variables(g)[1].name(), "n");
  ASSERT_EQ(trainable_variables(g).size(), 1u);
  EXPECT_EQ(trainable_variables(g)[0].name(), "t");
  // User collections are untouched by get_variable.
  g.add_to_collection("mine", t.handle());
  EXPECT_EQ(g.get_collection("mine").size(), 1u);
}

TEST(VariableScopeTest, InvalidNamesAndInitializerMismatches) {
  Graph g;
  EXPECT_STATUS(ErrorOf([&] { auto vs = variable_scope(g, ""); }),
                absl::StatusCode::kInvalidArgument, "variable_scope needs a name");
  EXPECT_STATUS(ErrorOf([&] { auto vs = variable_scope(g, "a b"); }),
                absl::StatusCode::kInvalidArgument, "invalid variable scope name 'a b'");
  EXPECT_STATUS(ErrorOf([&] { get_variable(g, "w/", {}); }), absl::StatusCode::kInvalidArgument,
                "invalid variable name 'w/'");
  Initializer wrong_shape = [](Graph& graph, const TensorShape&, DType dtype) {
    return zeros(graph, TensorShape({5}), dtype);
  };
  EXPECT_STATUS(ErrorOf([&] { get_variable(g, "w", {2}, DType::kFloat, wrong_shape); }),
                absl::StatusCode::kInvalidArgument,
                "the initializer of variable w made a value of shape [5], not [2]");
  EXPECT_STATUS(ErrorOf([&] { get_variable(g, "i", {2}, DType::kInt32, ones_initializer()); }),
                absl::StatusCode::kOk, "");
  EXPECT_STATUS(
      ErrorOf([&] { get_variable(g, "r", {2}, DType::kInt32, random_uniform_initializer()); }),
      absl::StatusCode::kInvalidArgument,
      "random_uniform_initializer only makes float32 or float64");
}

TEST(VariableScopeTest, VariablesHoldTheirInitialValues) {
  Graph g;
  Variable z = get_variable(g, "z", {2}, DType::kFloat, zeros_initializer());
  Variable o = get_variable(g, "o", {2}, DType::kDouble, ones_initializer());
  Variable c = get_variable(g, "c", {2, 2}, DType::kFloat, constant_initializer(2.5));
  Variable cv = get_variable(g, "cv", {3}, DType::kInt64, constant_initializer({1, 2, 3}));
  Variable dflt = get_variable(g, "i", {2}, DType::kInt32);  // Zeros for integers.
  Session s(g);
  s.run(global_variables_initializer(g));
  EXPECT_TENSOR_EQ(s.run(z.value()), F32({2}, {0, 0}));
  EXPECT_TENSOR_EQ(s.run(o.value()), testing::F64({2}, {1, 1}));
  EXPECT_TENSOR_EQ(s.run(c.value()), F32({2, 2}, {2.5f, 2.5f, 2.5f, 2.5f}));
  EXPECT_TENSOR_EQ(s.run(cv.value()), testing::I64({3}, {1, 2, 3}));
  EXPECT_TENSOR_EQ(s.run(dflt.value()), testing::I32({2}, {0, 0}));
  EXPECT_STATUS(ErrorOf([&] {
                  get_variable(g, "bad", {2}, DType::kFloat, constant_initializer({1, 2, 3}));
                }),
                absl::StatusCode::kInvalidArgument,
                "constant_initializer has 3 values but shape [2] needs 2");
}

}  // namespace
}  // namespace tw
