// report_uninitialized_variables and assert_variables_initialized (TF1's), with values,
// the graph TensorFlow builds for them, and the errors.
#include <gtest/gtest.h>

#include "graph/graph_def_import.h"
#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::Str;

TEST(VariablesReportTest, NamesTheUninitializedVariablesInOrder) {
  Graph g;
  Variable a(g, constant(g, 1.0f), "a");
  Variable b(g, constant(g, std::vector<float>{1, 2}, TensorShape({2})), "b");
  Variable local(g, constant(g, int64_t{0}), "local_step", false, {kLocalVariables});
  Output report = report_uninitialized_variables(g);
  EXPECT_EQ(report.dtype(), DType::kString);
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(report), Str({3}, {"a", "b", "local_step"}));
  sess.run(b.initializer());
  EXPECT_TENSOR_EQ(sess.run(report), Str({2}, {"a", "local_step"}));
  sess.run(global_variables_initializer(g));
  sess.run(local_variables_initializer(g));
  EXPECT_TENSOR_EQ(sess.run(report), Str({0}, {}));
  // An explicit list, and the empty list (a constant).
  Output only_a = report_uninitialized_variables(g, {a}, "only_a");
  EXPECT_TENSOR_EQ(sess.run(only_a), Str({0}, {}));
  Output none = report_uninitialized_variables(g, {}, "none");
  EXPECT_EQ(none.op().type(), "Const");
  EXPECT_TENSOR_EQ(sess.run(none), Str({0}, {}));
}

TEST(VariablesReportTest, BuiltAsTensorFlowBuildsIt) {
  Graph g;
  Variable v(g, constant(g, 1.0f), "v");
  Output report = report_uninitialized_variables(g);
  // VarIsInitializedOp per variable, Pack, LogicalNot, then boolean_mask (Where, Squeeze,
  // GatherV2) of a string Const of the names, under the scope, the mask on /cpu:0.
  EXPECT_EQ(report.op().name(), "report_uninitialized_variables/boolean_mask/GatherV2");
  EXPECT_EQ(report.op().type(), "GatherV2");
  EXPECT_EQ(g.operation("report_uninitialized_variables/VarIsInitializedOp").type(), "VarIsInitializedOp");
  EXPECT_EQ(g.operation("report_uninitialized_variables/LogicalNot").type(), "LogicalNot");
  EXPECT_EQ(g.operation("report_uninitialized_variables/stack").type(), "Pack");
  EXPECT_EQ(g.operation("report_uninitialized_variables/Const").type(), "Const");
  EXPECT_EQ(g.operation("report_uninitialized_variables/boolean_mask/Where").type(), "Where");
  EXPECT_EQ(g.operation("report_uninitialized_variables/LogicalNot").device(), "/device:CPU:0");
}

TEST(VariablesReportTest, AssertFailsWithFailedPreconditionNamingTheVariable) {
  Graph g;
  Variable a(g, constant(g, 1.0f), "a");
  Variable b(g, constant(g, std::vector<float>{1, 2}, TensorShape({2})), "b");
  Output check = assert_variables_initialized(g);
  Output check_b = assert_variables_initialized(g, {b});
  Session sess(g);
  sess.run(a.initializer());
  try {
    sess.run(check);
    FAIL() << "expected FailedPrecondition";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(std::string(e.what()).find("variable 'b' is uninitialized"), std::string::npos) << e.what();
  }
  sess.run(b.initializer());
  EXPECT_TENSOR_EQ(sess.run(check), testing::I32({2}, {0, 1}));  // The ranks, stacked.
  EXPECT_TENSOR_EQ(sess.run(check_b), Tensor::Scalar<int32_t>(1));
  Graph empty;
  EXPECT_FALSE(assert_variables_initialized(empty).op().valid());
}

TEST(VariablesReportTest, StringConstantsAndJoinFromCpp) {
  Graph g;
  Output s = string_join({constant(g, "a"), constant(g, std::vector<std::string>{"x", "y"})}, "/");
  Output mask = boolean_mask(constant(g, std::vector<std::string>{"p", "q", "r"}),
                             constant(g, Tensor(testing::Bool({3}, {true, false, true}))));
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(s), Str({2}, {"a/x", "a/y"}));
  EXPECT_TENSOR_EQ(sess.run(mask), Str({2}, {"p", "r"}));
}

TEST(VariablesReportTest, ImportsTensorFlowsStringConstants) {
  // As TensorFlow writes them: string_val for a Const, and the tensor_content encoding.
  auto def = ParseGraphDef(R"(
    node { name: "names" op: "Const"
           attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } }
                                                 string_val: "a\000b" string_val: "cd" } } } }
    node { name: "packed" op: "Const"
           attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } }
                                                 tensor_content: "\001\002xyz" } } } }
    node { name: "joined" op: "StringJoin" input: "names" input: "packed"
           attr { key: "N" value { i: 2 } } attr { key: "separator" value { s: "+" } } })",
                           /*text=*/true);
  ASSERT_TRUE(def.ok()) << def.status();
  Graph g;
  g.Import(*def);
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(g.operation("joined").output(0)), Str({2}, {std::string("a\0b+x", 5), "cd+yz"}));
}

}  // namespace
}  // namespace tw
