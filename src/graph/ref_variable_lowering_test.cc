// The lowering of TF1 reference variables on import: names kept, reads inserted where a ref
// is read as a value, and bad ref graphs refused naming the node.
#include "graph/ref_variable_lowering.h"

#include <gtest/gtest.h>

#include "graph/graph_def_import.h"
#include "testing/test_util.h"

namespace tw {
namespace {

std::string N(const std::string& body) { return "node {" + body + "}\n"; }

std::string Var(const std::string& name, const std::string& type = "DT_FLOAT", const std::string& device = "") {
  return N(" name: '" + name + "' op: 'VariableV2' device: '" + device + "'" +
           " attr { key: 'dtype' value { type: " + type + " } }" +
           " attr { key: 'shape' value { shape { dim { size: 2 } } } }");
}

std::string Const(const std::string& name, const std::string& type = "DT_FLOAT") {
  const std::string val = type == "DT_FLOAT" ? "float_val: 1 float_val: 2" : "int_val: 1 int_val: 2";
  return N(" name: '" + name + "' op: 'Const' attr { key: 'dtype' value { type: " + type + " } }" +
           " attr { key: 'value' value { tensor { dtype: " + type + " tensor_shape { dim { size: 2 } } " + val +
           " } } }");
}

std::string Op(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
               const std::string& attrs = " attr { key: 'T' value { type: DT_FLOAT } }") {
  std::string body = " name: '" + name + "' op: '" + op + "'";
  for (const std::string& in : inputs) body += " input: '" + in + "'";
  return N(body + attrs);
}

absl::Status Import(const std::string& text, FlowGraph* graph) {
  auto def = ParseGraphDef(text, /*text=*/true);
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return def.status();
  return ImportGraphDef(*def, graph);
}

std::string InputOf(const Node* n, int i) { return n->input_edge(i)->src->name(); }

TEST(RefVariableLoweringTest, VariablesAssignsAndReadsKeepTheirNames) {
  FlowGraph g;
  ASSERT_TRUE(Import(Var("v", "DT_FLOAT", "/job:localhost/replica:0/task:0/device:CPU:0") + Const("c") +
                         Op("v/Assign", "Assign", {"v", "c"}) + Op("v/read", "Identity", {"v"}) +
                         Op("sum", "AddV2", {"v", "v/read", "^v/Assign"}),
                     &g)
                  .ok());
  const Node* v = g.FindNode("v/handle");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->op(), "VarHandleOp");
  EXPECT_EQ(GetStringAttr(v->attrs(), "shared_name").value(), "v");
  EXPECT_EQ(v->requested_device(), "/job:localhost/replica:0/task:0/device:CPU:0");
  // "v" itself reads the value, as fetching a TF1 variable's "v:0" does.
  EXPECT_EQ(g.FindNode("v")->op(), "ReadVariableOp");
  EXPECT_EQ(InputOf(g.FindNode("v"), 0), "v/handle");
  const Node* assign = g.FindNode("v/Assign");
  EXPECT_EQ(assign->op(), "AssignVariableOp");
  EXPECT_EQ(InputOf(assign, 0), "v/handle");
  EXPECT_TRUE(GetBoolAttr(assign->attrs(), "validate_shape").value());  // TF's default kept
  EXPECT_EQ(g.FindNode("v/read")->op(), "ReadVariableOp");
  EXPECT_EQ(InputOf(g.FindNode("v/read"), 0), "v/handle");
  EXPECT_EQ(g.FindNode("v/read")->output_type(0), DType::kFloat);
  // AddV2 read v directly: a read of its own, on v's device, after AddV2's control inputs.
  const Node* sum = g.FindNode("sum");
  const Node* read = sum->input_edge(0)->src;
  EXPECT_EQ(read->op(), "ReadVariableOp");
  EXPECT_EQ(read->name(), "sum/read_v");
  EXPECT_EQ(read->requested_device(), v->requested_device());
  ASSERT_EQ(read->control_inputs().size(), 1u);
  EXPECT_EQ(read->control_inputs()[0]->src->name(), "v/Assign");
  EXPECT_EQ(InputOf(sum, 1), "v/read");
}

TEST(RefVariableLoweringTest, ApplyKeepsItsNameAsTheReadAfterTheUpdate) {
  FlowGraph g;
  ASSERT_TRUE(Import(Var("w") + Var("w/Momentum") + Const("grad") +
                         N(" name: 'lr' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }"
                           " attr { key: 'value' value { tensor { dtype: DT_FLOAT float_val: 0.1 } } }") +
                         Op("update", "ApplyMomentum", {"w", "w/Momentum", "lr", "grad", "lr"},
                            " attr { key: 'T' value { type: DT_FLOAT } }"
                            " attr { key: 'use_nesterov' value { b: true } }") +
                         Op("train", "NoOp", {"^update"}, ""),
                     &g)
                  .ok());
  const Node* update = g.FindNode("update");
  EXPECT_EQ(update->op(), "ReadVariableOp");
  ASSERT_EQ(update->control_inputs().size(), 1u);
  const Node* apply = update->control_inputs()[0]->src;
  EXPECT_EQ(apply->name(), "update/update");
  EXPECT_EQ(apply->op(), "ResourceApplyMomentum");
  EXPECT_EQ(InputOf(apply, 0), "w/handle");
  EXPECT_EQ(InputOf(apply, 1), "w/Momentum/handle");
  EXPECT_EQ(InputOf(update, 0), "w/handle");
  EXPECT_TRUE(GetBoolAttr(apply->attrs(), "use_nesterov").value());
  EXPECT_EQ(g.FindNode("train")->control_inputs()[0]->src->name(), "update");
}

TEST(RefVariableLoweringTest, IsVariableInitializedAndScatter) {
  FlowGraph g;
  ASSERT_TRUE(Import(Var("v") + Op("ready", "IsVariableInitialized", {"v"}, " attr { key: 'dtype' value { type: DT_FLOAT } }") +
                         Const("i", "DT_INT32") + Const("u") +
                         Op("s", "ScatterAdd", {"v", "i", "u"},
                            " attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'Tindices' value { type: DT_INT32 } }"),
                     &g)
                  .ok());
  EXPECT_EQ(g.FindNode("ready")->op(), "VarIsInitializedOp");
  EXPECT_EQ(g.FindNode("s/update")->op(), "ResourceScatterAdd");
  EXPECT_EQ(g.FindNode("s")->op(), "ReadVariableOp");
}

// A ref op's output used as a ref (TF 1.x accumulate_n: AssignAdd(Assign(t, zeros), x))
// names the variable, and the update waits for that op; DestroyTemporaryVariable becomes a
// read, DestroyResourceOp after it, and its own name the value once destroyed.
TEST(RefVariableLoweringTest, ForwardedRefsAndTemporaryVariables) {
  FlowGraph g;
  const std::string temp = N(" name: 't' op: 'TemporaryVariable' attr { key: 'dtype' value { type: DT_FLOAT } }"
                             " attr { key: 'shape' value { shape { dim { size: 2 } } } }");
  ASSERT_TRUE(Import(temp + Const("c") + Op("a", "Assign", {"t", "c"}) + Op("add", "AssignAdd", {"a", "c"}) +
                         Op("d", "DestroyTemporaryVariable", {"add", "^add"},
                            " attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'var_name' value { s: 't' } }"),
                     &g)
                  .ok());
  EXPECT_EQ(g.FindNode("t/handle")->op(), "VarHandleOp");
  EXPECT_EQ(GetStringAttr(g.FindNode("t/handle")->attrs(), "shared_name").value(), "t");
  const Node* add = g.FindNode("add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->op(), "AssignAddVariableOp");
  EXPECT_EQ(InputOf(add, 0), "t/handle");
  ASSERT_EQ(add->control_inputs().size(), 1u);
  EXPECT_EQ(add->control_inputs()[0]->src->name(), "a");  // after the Assign whose output it named
  EXPECT_EQ(g.FindNode("d")->op(), "Identity");
  EXPECT_EQ(InputOf(g.FindNode("d"), 0), "d/read");
  EXPECT_EQ(g.FindNode("d/destroy")->op(), "DestroyResourceOp");
  EXPECT_EQ(InputOf(g.FindNode("d/destroy"), 0), "t/handle");
}

TEST(RefVariableLoweringTest, AGraphWithoutRefOpsIsUntouched) {
  GraphDef def = ParseGraphDef(Const("c") + Op("i", "Identity", {"c"}), true).value();
  EXPECT_FALSE(HasRefVariableOps(def));
  def = ParseGraphDef(Var("v"), true).value();
  EXPECT_TRUE(HasRefVariableOps(def));
}

TEST(RefVariableLoweringTest, ALaterExtensionMayAssignAVariableLoweredBefore) {
  FlowGraph g;
  ASSERT_TRUE(Import(Var("v"), &g).ok());
  ASSERT_TRUE(Import(Const("c") + Op("set", "Assign", {"v", "c"}), &g).ok());
  EXPECT_EQ(g.FindNode("set")->op(), "AssignVariableOp");
  EXPECT_EQ(InputOf(g.FindNode("set"), 0), "v/handle");
}

TEST(RefVariableLoweringTest, AControlInputOnAVariableWaitsForItsHandleNotARead) {
  FlowGraph g;
  ASSERT_TRUE(Import(Var("v") + Var("v/handle") + Op("after", "NoOp", {"^v", "^v/handle"}, ""), &g).ok());
  // "v/handle" was taken by the second variable's name: the first's handle is "v/handle_1".
  const Node* after = g.FindNode("after");
  ASSERT_EQ(after->control_inputs().size(), 2u);
  EXPECT_EQ(after->control_inputs()[0]->src->name(), "v/handle_1");
  EXPECT_EQ(after->control_inputs()[0]->src->op(), "VarHandleOp");
  EXPECT_EQ(after->control_inputs()[1]->src->name(), "v/handle/handle");
}

void ExpectRejected(const std::string& text, const std::string& node, const std::string& what) {
  FlowGraph g;
  absl::Status s = Import(text, &g);
  EXPECT_STATUS(s, absl::StatusCode::kInvalidArgument, node);
  EXPECT_STATUS(s, absl::StatusCode::kInvalidArgument, what);
  EXPECT_EQ(g.num_nodes(), 0);  // all or nothing
}

TEST(RefVariableLoweringTest, BadRefGraphsAreRefusedNamingTheNode) {
  ExpectRejected(Const("c") + Op("a", "Assign", {"c", "c"}), "node 'a' (Assign)",
                 "input 0 ('c') must be a reference variable");
  ExpectRejected(Var("v") + Const("c", "DT_INT32") +
                     Op("a", "Assign", {"v", "c"}, " attr { key: 'T' value { type: DT_INT32 } }"),
                 "node 'a' (Assign)", "input 0 ('v') is a float32 variable but T is int32");
  ExpectRejected(Var("v") + Op("a", "Assign", {"v"}), "node 'a' (Assign)", "has 1 data inputs; Assign takes 2");
  ExpectRejected(Var("v") + Const("c") + Op("a", "Assign", {"v:1", "c"}), "node 'a' (Assign)",
                 "must be a reference variable");
  ExpectRejected(Var("v") + Op("r", "Identity", {"v:1"}), "node 'r' (Identity)", "has one output");
  ExpectRejected(N(" name: 'v' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } }"),
                 "node 'v' (VariableV2)", "shape");
  ExpectRejected(Var("v") + Const("c") + Op("g", "ApplyGradientDescent", {"v", "c", "c"},
                                            " attr { key: 'T' value { type: DT_FLOAT } }"
                                            " attr { key: 'bogus' value { b: true } }"),
                 "node 'g' (ApplyGradientDescent)", "bogus");
  ExpectRejected(Var("v") + Const("c") + Op("m", "ApplyMomentum", {"v", "c", "c", "c", "c"}),
                 "node 'm' (ApplyMomentum)", "input 1 ('c') must be a reference variable");
}


TEST(RefVariableLoweringTest, AnAssignWithoutValidateShapeLeavesTheShapeOpen) {
  FlowGraph g;
  ASSERT_TRUE(Import(Var("v") + Var("u") + Const("c") +
                         Op("a", "Assign", {"v", "c"},
                            " attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'validate_shape' value { b: false } }") +
                         Op("b", "Assign", {"u", "c"}),
                     &g)
                  .ok());
  EXPECT_FALSE(GetShapeAttr(g.FindNode("v/handle")->attrs(), "shape")->known_rank());
  EXPECT_EQ(*GetShapeAttr(g.FindNode("u/handle")->attrs(), "shape"), PartialShape({2}));
  EXPECT_FALSE(GetBoolAttr(g.FindNode("a")->attrs(), "validate_shape").value());
}


TEST(RefVariableLoweringTest, TheOldVariableOpAndAContainerAndSharedNameAreKept) {
  FlowGraph g;
  ASSERT_TRUE(Import(N(" name: 'old' op: 'Variable' attr { key: 'dtype' value { type: DT_INT32 } }"
                       " attr { key: 'shape' value { shape { } } }"
                       " attr { key: 'container' value { s: 'box' } } attr { key: 'shared_name' value { s: 'shared' } }") +
                         Op("r", "Identity", {"old"}, " attr { key: 'T' value { type: DT_INT32 } }"),
                     &g)
                  .ok());
  const Node* h = g.FindNode("old/handle");
  EXPECT_EQ(h->op(), "VarHandleOp");
  EXPECT_EQ(GetStringAttr(h->attrs(), "container").value(), "box");
  EXPECT_EQ(GetStringAttr(h->attrs(), "shared_name").value(), "shared");
  EXPECT_EQ(g.FindNode("r")->op(), "ReadVariableOp");
  EXPECT_EQ(g.FindNode("r")->output_type(0), DType::kInt32);
}

}  // namespace
}  // namespace tw
