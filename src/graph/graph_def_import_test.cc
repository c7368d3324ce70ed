#include "graph/graph_def_import.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::F32;
using testing::I32;

constexpr char kConst[] = R"(
  name: "c" op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                       float_val: 1 float_val: 2 } } })";

// Parses a text GraphDef (which must be well-formed text) and imports it into `graph`.
absl::Status ImportText(const std::string& text, FlowGraph* graph, GraphSource source = GraphSource::kClient) {
  auto def = ParseGraphDef(text, /*text=*/true);
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return def.status();
  return ImportGraphDef(*def, graph, {}, source);
}

absl::Status ImportText(const std::string& text) {
  FlowGraph graph;
  return ImportText(text, &graph);
}

std::string N(const std::string& body) { return "node {" + body + "}\n"; }
std::string Identity(const std::string& name, const std::string& input,
                     const std::string& type = "DT_FLOAT") {
  return N(" name: \"" + name + "\" op: \"Identity\" input: \"" + input +
           "\" attr { key: \"T\" value { type: " + type + " } } ");
}

// Every malformed graph is an InvalidArgument that names the offending node.
void ExpectRejected(const std::string& text, const std::string& node, const std::string& what,
                    GraphSource source = GraphSource::kClient) {
  FlowGraph graph;
  absl::Status s = ImportText(text, &graph, source);
  EXPECT_STATUS(s, absl::StatusCode::kInvalidArgument, node);
  EXPECT_STATUS(s, absl::StatusCode::kInvalidArgument, what);
}

void ExpectRejectedIn(FlowGraph* graph, const std::string& text, const std::string& node) {
  EXPECT_STATUS(ImportText(text, graph), absl::StatusCode::kInvalidArgument, node);
}

TEST(GraphDefImportTest, UnknownOp) {
  ExpectRejected(N(kConst) + N(R"(name: "x" op: "NoSuchOp" input: "c")"), "node 'x' (NoSuchOp)",
                 "unknown op 'NoSuchOp'");
}

TEST(GraphDefImportTest, MissingAttr) {
  ExpectRejected(N(R"(name: "k" op: "Const"
      attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 1 } } })"),
                 "node 'k' (Const)", "missing attr 'dtype'");
}

TEST(GraphDefImportTest, MistypedAttr) {
  ExpectRejected(N(R"(name: "k" op: "Const" attr { key: "dtype" value { i: 1 } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 1 } } })"),
                 "node 'k' (Const)", "attr 'dtype' should be type but holds int");
}

TEST(GraphDefImportTest, UnknownAttr) {
  ExpectRejected(N(R"(name: "n" op: "NoOp" attr { key: "bogus" value { i: 1 } })"),
                 "node 'n' (NoOp)", "unknown attr 'bogus'");
  // Internal "_" attrs are allowed.
  EXPECT_TRUE(
      ImportText(N(R"(name: "n" op: "NoOp" attr { key: "_class" value { s: "x" } })")).ok());
}

TEST(GraphDefImportTest, DisallowedAttrValues) {
  // A dtype the attr's list does not allow.
  ExpectRejected(N(R"(name: "s" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } })") +
                     N(R"(name: "r" op: "RandomUniform" input: "s"
      attr { key: "T" value { type: DT_INT32 } } attr { key: "dtype" value { type: DT_INT32 } })"),
                 "node 'r' (RandomUniform)",
                 "attr 'dtype' is int32, not one of {float32, float64}");
  // A dtype tensorweave does not support at all.
  ExpectRejected(
      N(R"(name: "p" op: "Placeholder" attr { key: "dtype" value { type: 14 } })"),  // DT_BFLOAT16
      "node 'p' (Placeholder)", "attr 'dtype' is DT_BFLOAT16 (14), which tensorweave does not support");
  // An int below the attr's minimum.
  ExpectRejected(N(R"(name: "a" op: "_Arg" attr { key: "T" value { type: DT_FLOAT } }
      attr { key: "index" value { i: -1 } })"),
                 "node 'a' (_Arg)", "less than the minimum 0", GraphSource::kPartitioner);
}

// Internal ops carry attrs the runtime trusts (slot indexes, rendezvous keys): a client
// graph may not use them, registered or not; the partitioner's graphs may.
TEST(GraphDefImportTest, InternalOpsRefusedInClientGraphs) {
  const std::string arg = N(R"(name: "a" op: "_Arg" attr { key: "T" value { type: DT_FLOAT } }
      attr { key: "index" value { i: 3 } })");
  ExpectRejected(arg, "node 'a' (_Arg)", "op '_Arg' is internal");
  ExpectRejected(N(kConst) + N(R"(name: "r" op: "_Retval" input: "c"
      attr { key: "T" value { type: DT_FLOAT } } attr { key: "index" value { i: 1000000 } })"),
                 "node 'r' (_Retval)", "a client graph may not use it");
  ExpectRejected(N(kConst) + N(R"(name: "s" op: "_Send" input: "c" attr { key: "T" value { type: DT_FLOAT } }
      attr { key: "tensor_name" value { s: "x" } } attr { key: "send_device" value { s: "/cpu:0" } }
      attr { key: "recv_device" value { s: "/cpu:0" } })"),
                 "node 's' (_Send)", "op '_Send' is internal");
  ExpectRejected(N(R"(name: "h" op: "_HostSend")"), "node 'h' (_HostSend)", "op '_HostSend' is internal");
  FlowGraph graph;
  EXPECT_TRUE(ImportText(arg, &graph, GraphSource::kPartitioner).ok());
  EXPECT_EQ(graph.num_nodes(), 1);
}

// An extension is all or nothing: a node refused after others were added takes them out.
TEST(GraphDefImportTest, FailedExtensionLeavesTheGraphAsItWas) {
  FlowGraph graph;
  ASSERT_TRUE(ImportText(N(kConst), &graph).ok());
  ExpectRejectedIn(&graph, Identity("good", "c") + Identity("bad", "good", "DT_INT32"), "node 'bad' (Identity)");
  EXPECT_EQ(graph.num_nodes(), 1);
  EXPECT_EQ(graph.FindNode("good"), nullptr);
  EXPECT_TRUE(graph.nodes()[0]->out_edges().empty());
  ASSERT_TRUE(ImportText(Identity("good", "c"), &graph).ok());
  EXPECT_EQ(graph.num_nodes(), 2);
  EXPECT_EQ(graph.nodes()[0]->out_edges().size(), 1u);
}

// A caller that gives up (a cancelled CreateSession) stops a long import; nothing is added.
TEST(GraphDefImportTest, ACancelledImportStopsAndAddsNothing) {
  GraphDef def;
  for (int i = 0; i < 10000; ++i) {
    NodeDef* node = def.add_node();
    node->set_name("c" + std::to_string(i));
    node->set_op("Const");
    (*node->mutable_attr())["dtype"].set_type(DT_FLOAT);
    TensorProto* value = (*node->mutable_attr())["value"].mutable_tensor();
    value->set_dtype(DT_FLOAT);
    value->mutable_tensor_shape();
    value->add_float_val(1);
  }
  FlowGraph graph;
  int asked = 0;
  absl::Status s = ImportGraphDef(def, &graph, {}, GraphSource::kClient, [&] { return ++asked >= 2; });
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  EXPECT_NE(s.message().find("cancelled after 8192 of 10000 nodes"), std::string::npos) << s;
  EXPECT_EQ(graph.num_nodes(), 0);
  EXPECT_TRUE(ImportGraphDef(def, &graph, {}, GraphSource::kClient, [] { return false; }).ok());
  EXPECT_EQ(graph.num_nodes(), 10000);
}

// Until GraphDef version 21 TensorFlow wrote an unset Placeholder shape as `shape {}`: such
// a graph's scalar Placeholder is read as unknown (TF's Placeholder shape function), a
// later graph's stays a scalar.
TEST(GraphDefImportTest, LegacyPlaceholderScalarShapeIsUnknown) {
  const std::string x = N(R"(name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
                             attr { key: "shape" value { shape {} } })");
  for (const auto& [versions, unknown] : {std::pair<std::string, bool>{"", true},
                                          {"versions { producer: 21 }", true},
                                          {"versions { producer: 22 }", false}}) {
    FlowGraph graph;
    ASSERT_TRUE(ImportText(x + versions, &graph).ok()) << versions;
    EXPECT_EQ(graph.FindNode("x")->output_shape(0), unknown ? PartialShape::UnknownRank() : PartialShape({}))
        << versions;
  }
}

TEST(GraphDefImportTest, DanglingInput) {
  ExpectRejected(N(kConst) + Identity("y", "nowhere"), "node 'y' (Identity)",
                 "input 'nowhere' names no node");
  ExpectRejected(N(kConst) + N(R"(name: "n" op: "NoOp" input: "^ghost")"), "node 'n' (NoOp)",
                 "input '^ghost' names no node");
}

TEST(GraphDefImportTest, Cycle) {
  ExpectRejected(Identity("a", "b") + Identity("b", "a"), "node 'a' (Identity)", "cycle");
  // Through a control edge, and a self-loop.
  ExpectRejected(
      N(kConst) + Identity("x", "c") + N(R"(name: "n" op: "NoOp" input: "^x" input: "^n")"),
      "node 'n' (NoOp)", "cycle");
}

TEST(GraphDefImportTest, DuplicateName) {
  ExpectRejected(N(kConst) + N(kConst), "node 'c' (Const)", "duplicate node name");
  // A name already in the graph being extended.
  FlowGraph graph;
  ASSERT_TRUE(ImportText(N(kConst), &graph).ok());
  absl::Status s = ImportText(N(kConst), &graph);
  EXPECT_STATUS(s, absl::StatusCode::kInvalidArgument, "node 'c' (Const): duplicate node name");
}

TEST(GraphDefImportTest, WrongNumberOfInputs) {
  ExpectRejected(N(kConst) + N(R"(name: "y" op: "Identity" input: "c" input: "c"
      attr { key: "T" value { type: DT_FLOAT } })"),
                 "node 'y' (Identity)", "expects 1 inputs but was given 2");
  ExpectRejected(N(R"(name: "y" op: "Identity" attr { key: "T" value { type: DT_FLOAT } })"),
                 "node 'y' (Identity)", "expects 1 inputs but was given 0");
}

TEST(GraphDefImportTest, DtypeMismatchOnAnEdge) {
  ExpectRejected(N(kConst) + Identity("y", "c", "DT_INT32"), "node 'y' (Identity)",
                 "input 0 ('c:0') is float32 but the op expects int32");
  // A Const whose value disagrees with its dtype attr.
  ExpectRejected(N(R"(name: "k" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 1 } } })"),
                 "node 'k' (Const)", "value is float32 but dtype is int32");
}

TEST(GraphDefImportTest, BadInputIndex) {
  ExpectRejected(N(kConst) + Identity("y", "c:5"), "node 'y' (Identity)",
                 "names output 5 of 'c', which has 1 outputs");
  ExpectRejected(N(kConst) + Identity("y", "c:-1"), "node 'y' (Identity)",
                 "malformed input name 'c:-1'");
  ExpectRejected(N(kConst) + Identity("y", "c:x"), "node 'y' (Identity)",
                 "malformed input name 'c:x'");
  ExpectRejected(N(kConst) + Identity("y", ""), "node 'y' (Identity)", "empty input name");
  // A data input after a control input.
  ExpectRejected(N(kConst) + N(R"(name: "y" op: "Identity" input: "^c" input: "c"
      attr { key: "T" value { type: DT_FLOAT } })"),
                 "node 'y' (Identity)", "data input listed after a control input");
}

TEST(GraphDefImportTest, InvalidName) {
  for (const char* bad : {"bad name", "-lead", "a:b", "", "^x", "caf\xc3\xa9"}) {
    std::string text = "node { name: \"" + std::string(bad) + "\" op: \"NoOp\" }";
    ExpectRejected(text, "'" + std::string(bad) + "'", "invalid name");
  }
  for (const char* good : {"a", "_x", ".dot", "scope/sub-name_1.2", "9lives"}) {
    EXPECT_TRUE(ImportText("node { name: \"" + std::string(good) + "\" op: \"NoOp\" }").ok())
        << good;
  }
}

TEST(GraphDefImportTest, ShapeFunctionErrorsNameTheNode) {
  ExpectRejected(N(R"(name: "s" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
                                           int_val: 3 int_val: -4 } } })") +
                     N(R"(name: "r" op: "RandomUniform" input: "s"
      attr { key: "T" value { type: DT_INT32 } } attr { key: "dtype" value { type: DT_FLOAT } })"),
                 "node 'r' (RandomUniform)", "negative dimension");
}

TEST(GraphDefImportTest, StructuralErrorsLeaveTheGraphUnchanged) {
  FlowGraph graph;
  EXPECT_FALSE(ImportText(N(kConst) + Identity("a", "b") + Identity("b", "a"), &graph).ok());
  EXPECT_EQ(graph.num_nodes(), 0);
  EXPECT_FALSE(ImportText(N(kConst) + Identity("y", "nope"), &graph).ok());
  EXPECT_EQ(graph.num_nodes(), 0);
}

TEST(GraphDefImportTest, LimitsOnNodesBytesAndConstantsComeFirst) {
  auto def = ParseGraphDef(R"(
    node { name: 'a' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
           attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 1 } } } }
    node { name: 'b' op: 'Identity' input: 'a' attr { key: 'T' value { type: DT_FLOAT } } }
  )", /*text=*/true);
  ASSERT_TRUE(def.ok());
  ResourceLimits limits;
  limits.max_graph_nodes = 1;
  FlowGraph graph;
  EXPECT_STATUS(ImportGraphDef(*def, &graph, limits), absl::StatusCode::kResourceExhausted,
                "graph of 2 nodes is over the max_graph_nodes limit of 1");
  limits = {};
  limits.max_graph_bytes = 20;
  EXPECT_STATUS(ImportGraphDef(*def, &graph, limits), absl::StatusCode::kResourceExhausted,
                "bytes is over the max_graph_bytes limit of 20");
  limits = {};
  limits.max_tensor_bytes = 15;
  EXPECT_STATUS(ImportGraphDef(*def, &graph, limits), absl::StatusCode::kResourceExhausted,
                "node 'a' (Const): attr 'value': TensorProto: float32 [4] tensor of 16 bytes is over the "
                "max_tensor_bytes limit of 15");
  EXPECT_EQ(graph.num_nodes(), 0);
  limits.max_tensor_bytes = 16;
  limits.max_graph_nodes = 2;
  EXPECT_TRUE(ImportGraphDef(*def, &graph, limits).ok());
  // Nodes already in the graph count towards max_graph_nodes.
  auto more = ParseGraphDef("node { name: 'c' op: 'Identity' input: 'b' attr { key: 'T' value { type: DT_FLOAT } } }",
                            /*text=*/true);
  EXPECT_STATUS(ImportGraphDef(*more, &graph, limits), absl::StatusCode::kResourceExhausted,
                "graph of 3 nodes is over the max_graph_nodes limit of 2");
}

TEST(GraphDefImportTest, NodesInAnyOrder) {
  FlowGraph graph;
  absl::Status s = ImportText(Identity("z", "y") + N(R"(name: "n" op: "NoOp" input: "^z")") +
                                  Identity("y", "c") + N(kConst),
                              &graph);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(graph.num_nodes(), 4);
  // Added in a topological order.
  std::vector<std::string> order;
  for (const auto* n : graph.nodes()) order.push_back(n->name());
  auto pos = [&](const std::string& name) {
    return std::find(order.begin(), order.end(), name) - order.begin();
  };
  EXPECT_LT(pos("c"), pos("y"));
  EXPECT_LT(pos("y"), pos("z"));
  EXPECT_LT(pos("z"), pos("n"));
  EXPECT_EQ(graph.FindNode("z")->output_shape(0), PartialShape({2}));
  EXPECT_EQ(graph.FindNode("n")->control_inputs().size(), 1u);
}

TEST(GraphDefImportTest, ExtendingRefersToEarlierNodes) {
  FlowGraph graph;
  ASSERT_TRUE(ImportText(N(kConst), &graph).ok());
  absl::Status s = ImportText(Identity("y", "c"), &graph);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(graph.FindNode("y")->input_edge(0)->src, graph.FindNode("c"));
}

// Extending with the library again keeps it: a function equal as a message is the same
// whatever the order of its maps' entries (a client's Extend re-sends what the server
// parsed, whose map order may differ); one with another body is refused by name.
TEST(GraphDefImportTest, ExtendingWithTheSameFunctionsKeepsThem) {
  constexpr char kLibrary[] = R"(library { function {
      signature { name: "f" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
      attr { key: "a" value { i: 1 } } attr { key: "b" value { i: 2 } } attr { key: "c" value { i: 3 }}
      ret { key: "y" value: "x" } } })";
  constexpr char kReordered[] = R"(library { function {
      signature { name: "f" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
      attr { key: "c" value { i: 3 } } attr { key: "a" value { i: 1 } } attr { key: "b" value { i: 2 }}
      ret { key: "y" value: "x" } } })";
  constexpr char kOtherBody[] = R"(library { function {
      signature { name: "f" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
      attr { key: "a" value { i: 5 } } ret { key: "y" value: "x" } } })";
  FlowGraph graph;
  ASSERT_TRUE(ImportText(N(kConst) + kLibrary, &graph).ok());
  absl::Status again = ImportText(kReordered, &graph);
  EXPECT_TRUE(again.ok()) << again;
  EXPECT_EQ(graph.library().function_size(), 1);
  absl::Status other = ImportText(kOtherBody, &graph);
  EXPECT_EQ(other.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(other.message(), "function 'f' is already defined with another body");
}

// A graph with data, indexed and control inputs, a device and list/shape/string attrs.
void BuildSample(FlowGraph* g) {
  auto add = [&](NodeSpec spec) {
    auto n = g->AddNode(std::move(spec));
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : nullptr;
  };
  Node* c =
      add({"c",
           "Const",
           {},
           "/cpu:0",
           {{"value", MakeAttr(F32({2, 2}, {1, 2, 3, 4}))}, {"dtype", MakeAttr(DType::kFloat)}}});
  Node* p = add({"p",
                 "Placeholder",
                 {},
                 "",
                 {{"dtype", MakeAttr(DType::kInt32)}, {"shape", MakeAttr(PartialShape({-1, 3}))}}});
  Node* v = add({"v",
                 "VarHandleOp",
                 {},
                 "",
                 {{"dtype", MakeAttr(DType::kFloat)},
                  {"shape", MakeAttr(PartialShape({2, 2}))},
                  {"shared_name", MakeAttr("weights")}}});
  Node* a = add({"scope/assign",
                 "AssignVariableOp",
                 {{v, 0}, {c, 0}},
                 "",
                 {{"dtype", MakeAttr(DType::kFloat)}}});
  add({"id", "Identity", {{a, 0}, {p, kControlSlot}}, "", {{"T", MakeAttr(DType::kFloat)}}});
  add({"shape",
       "Const",
       {},
       "",
       {{"value", MakeAttr(I32({2}, {3, 4}))}, {"dtype", MakeAttr(DType::kInt32)}}});
  add({"r",
       "RandomUniform",
       {{g->FindNode("shape"), 0}},
       "",
       {{"dtype", MakeAttr(DType::kDouble)},
        {"T", MakeAttr(DType::kInt32)},
        {"seed", MakeAttr(int64_t{7})}}});
}

void ExpectSameGraphDef(const GraphDef& a, const GraphDef& b) {
  std::string diff;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  // Import adds nodes in a topological order of its own; node order carries no meaning.
  differ.TreatAsSet(GraphDef::descriptor()->FindFieldByName("node"));
  EXPECT_TRUE(differ.Compare(a, b)) << diff;
}

TEST(GraphDefRoundTripTest, Binary) {
  FlowGraph g;
  BuildSample(&g);
  GraphDef def = g.ToGraphDef();
  std::string bytes;
  ASSERT_TRUE(def.SerializeToString(&bytes));
  auto parsed = ParseGraphDef(bytes, /*text=*/false);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  FlowGraph g2;
  ASSERT_TRUE(ImportGraphDef(*parsed, &g2).ok());
  ExpectSameGraphDef(g2.ToGraphDef(), def);
  EXPECT_EQ(g2.FindNode("id")->control_inputs().size(), 1u);
  EXPECT_EQ(g2.FindNode("c")->requested_device(), "/cpu:0");
  EXPECT_EQ(g2.FindNode("r")->output_shape(0), PartialShape({3, 4}));
  EXPECT_EQ(g2.FindNode("p")->output_shape(0), PartialShape({-1, 3}));
  ASSERT_NE(g2.FindNode("c")->const_value(), nullptr);
  EXPECT_TENSOR_EQ(*g2.FindNode("c")->const_value(), F32({2, 2}, {1, 2, 3, 4}));
}

TEST(GraphDefRoundTripTest, Text) {
  FlowGraph g;
  BuildSample(&g);
  GraphDef def = g.ToGraphDef();
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(def, &text));
  auto parsed = ParseGraphDef(text, /*text=*/true);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  FlowGraph g2;
  ASSERT_TRUE(ImportGraphDef(*parsed, &g2).ok());
  ExpectSameGraphDef(g2.ToGraphDef(), def);
}

TEST(GraphDefRoundTripTest, Files) {
  FlowGraph g;
  BuildSample(&g);
  GraphDef def = g.ToGraphDef();
  const std::string dir = ::testing::TempDir();
  for (const std::string name : {"graph_rt.pb", "graph_rt.pbtxt"}) {
    const std::string path = dir + "/" + name;
    ASSERT_TRUE(WriteGraphDefFile(def, path).ok());
    auto read = ReadGraphDefFile(path);
    ASSERT_TRUE(read.ok()) << read.status();
    ExpectSameGraphDef(*read, def);
    std::remove(path.c_str());
  }
  // Text in a file without a text extension is still read.
  const std::string path = dir + "/graph_text_as.pb";
  {
    std::string text;
    google::protobuf::TextFormat::PrintToString(def, &text);
    std::ofstream(path) << text;
  }
  auto read = ReadGraphDefFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameGraphDef(*read, def);
  std::remove(path.c_str());
  EXPECT_STATUS(ReadGraphDefFile(dir + "/no_such_graph.pb").status(), absl::StatusCode::kNotFound,
                "no_such_graph.pb");
}

TEST(GraphDefParseTest, MalformedBytes) {
  EXPECT_STATUS(ParseGraphDef("node { name: ", /*text=*/true).status(),
                absl::StatusCode::kInvalidArgument, "cannot parse GraphDef text: line 1");
  EXPECT_STATUS(ParseGraphDef("node { bogus_field: 1 }", /*text=*/true).status(),
                absl::StatusCode::kInvalidArgument, "bogus_field");
  EXPECT_STATUS(ParseGraphDef(std::string("\x0a\xff\xff\xff\xff\x0f", 6), /*text=*/false).status(),
                absl::StatusCode::kInvalidArgument, "not a valid binary GraphDef");
  // An empty GraphDef is valid and adds nothing.
  auto empty = ParseGraphDef("", /*text=*/false);
  ASSERT_TRUE(empty.ok());
  FlowGraph g;
  EXPECT_TRUE(ImportGraphDef(*empty, &g).ok());
  EXPECT_EQ(g.num_nodes(), 0);
}

}  // namespace
}  // namespace tw
