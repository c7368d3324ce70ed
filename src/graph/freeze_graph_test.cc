// Freezing (graph/freeze_graph.h) on small GraphDefs: what is kept, what each variable and
// its readers become, and the errors. tw freeze and TensorFlow's own output are compared in
// python/tests/test_tw_freeze.py.
#include "graph/freeze_graph.h"

#include <gtest/gtest.h>

#include <map>

#include "graph/graph_def_import.h"
#include "tensor/tensor_proto.h"

namespace tw {
namespace {

GraphDef Parse(const std::string& text) {
  auto def = ParseGraphDef(text, /*text=*/true);
  EXPECT_TRUE(def.ok()) << def.status();
  return def.ok() ? *def : GraphDef();
}

std::vector<std::string> Names(const GraphDef& def) {
  std::vector<std::string> names;
  for (const NodeDef& n : def.node()) names.push_back(n.name() + "=" + n.op());
  return names;
}

const NodeDef& Node(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return n;
  }
  static NodeDef none;
  ADD_FAILURE() << "no node " << name;
  return none;
}

Tensor Floats(std::vector<float> values) {
  Tensor t(DType::kFloat, TensorShape({static_cast<int64_t>(values.size())}));
  std::copy(values.begin(), values.end(), t.flat<float>().data());
  return t;
}

// A resource variable read through an Identity of its handle, a reference variable read by
// its "/read" Identity, an initializer and a saver-like node nothing needs.
constexpr char kGraph[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "h" op: "VarHandleOp" device: "/cpu:0"
       attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } }
       attr { key: "shared_name" value { s: "h" } } }
node { name: "h_id" op: "Identity" input: "h" attr { key: "T" value { type: DT_RESOURCE } } }
node { name: "read_h" op: "ReadVariableOp" input: "h_id" device: "/cpu:0" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } }
       attr { key: "_class" value { list { s: "loc:@v" } } } }
node { name: "v/read" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "sum" op: "AddV2" input: "read_h" input: "v/read" input: "^x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Mul" input: "sum:0" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "init_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "init" op: "Assign" input: "v" input: "init_value" attr { key: "T" value { type: DT_FLOAT } } }
)";

VariableValueFn Values(std::map<std::string, Tensor> values) {
  return [values](const std::string& name) -> absl::StatusOr<Tensor> {
    auto it = values.find(name);
    if (it == values.end()) return absl::NotFoundError("not in the test's values");
    return it->second;
  };
}

TEST(FreezeGraphTest, ExtractSubGraphKeepsWhatOutputsNeedInOrder) {
  auto sub = ExtractSubGraph(Parse(kGraph), {"sum"});
  ASSERT_TRUE(sub.ok()) << sub.status();
  // Control inputs count ("^x"); the initializer and "out" do not.
  EXPECT_EQ(Names(*sub), (std::vector<std::string>{"x=Placeholder", "h=VarHandleOp", "h_id=Identity",
                                                   "read_h=ReadVariableOp", "v=VariableV2", "v/read=Identity",
                                                   "sum=AddV2"}));
  auto bad = ExtractSubGraph(Parse(kGraph), {"out", "nope:1"});
  EXPECT_EQ(bad.status().message(), "output node 'nope' is not in the graph");
}

TEST(FreezeGraphTest, VariablesBecomeConstsAndTheirReadersIdentities) {
  auto frozen = FreezeGraphDef(Parse(kGraph), Values({{"h", Floats({1, 2})}, {"v", Floats({3, 4})}}), {"out"});
  ASSERT_TRUE(frozen.ok()) << frozen.status();
  EXPECT_EQ(Names(*frozen), (std::vector<std::string>{"x=Placeholder", "h=Const", "h_id=Identity", "read_h=Identity",
                                                      "v=Const", "v/read=Identity", "sum=AddV2", "out=Mul"}));
  EXPECT_EQ(Node(*frozen, "h_id").attr().at("T").type(), DT_FLOAT);  // was DT_RESOURCE
  EXPECT_EQ(Node(*frozen, "read_h").attr().at("T").type(), DT_FLOAT);
  EXPECT_EQ(Node(*frozen, "read_h").input(0), "h_id");
  EXPECT_EQ(Node(*frozen, "read_h").attr().count("dtype"), 0u);
  EXPECT_EQ(Node(*frozen, "v").attr().at("_class").list().s(0), "loc:@v");
  auto value = TensorFromProto(Node(*frozen, "v").attr().at("value").tensor());
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value->flat<float>()[1], 4.0f);
  for (const NodeDef& n : frozen->node()) EXPECT_EQ(n.device(), "") << n.name();
  // It imports: every edge's dtype agrees.
  FlowGraph graph;
  EXPECT_TRUE(ImportGraphDef(*frozen, &graph).ok());
}

TEST(FreezeGraphTest, ListsAndDevices) {
  FreezeOptions options;
  options.blacklist = {"h"};
  options.clear_devices = false;
  auto frozen = FreezeGraphDef(Parse(kGraph), Values({{"v", Floats({3, 4})}}), {"out"}, options);
  ASSERT_TRUE(frozen.ok()) << frozen.status();
  EXPECT_EQ(Node(*frozen, "h").op(), "VarHandleOp");
  EXPECT_EQ(Node(*frozen, "h_id").attr().at("T").type(), DT_RESOURCE);
  EXPECT_EQ(Node(*frozen, "read_h").op(), "ReadVariableOp");
  EXPECT_EQ(Node(*frozen, "read_h").device(), "/cpu:0");
  EXPECT_EQ(Node(*frozen, "v").op(), "Const");
  FreezeOptions only_h;
  only_h.whitelist = {"h"};
  frozen = FreezeGraphDef(Parse(kGraph), Values({{"h", Floats({1, 2})}}), {"out"}, only_h);
  ASSERT_TRUE(frozen.ok()) << frozen.status();
  EXPECT_EQ(Node(*frozen, "h").op(), "Const");
  EXPECT_EQ(Node(*frozen, "v").op(), "VariableV2");
}

TEST(FreezeGraphTest, ValuesThatDoNotFitAreRefusedNamingTheVariable) {
  auto missing = FreezeGraphDef(Parse(kGraph), Values({{"h", Floats({1, 2})}}), {"out"});
  EXPECT_EQ(missing.status().message(), "variable 'v': not in the test's values");
  auto shape = FreezeGraphDef(Parse(kGraph), Values({{"h", Floats({1, 2, 3})}, {"v", Floats({3, 4})}}), {"out"});
  EXPECT_EQ(shape.status().message(), "variable 'h' has shape [2] but its value has [3]");
  Tensor ints(DType::kInt32, TensorShape({2}));
  auto dtype = FreezeGraphDef(Parse(kGraph), Values({{"h", Floats({1, 2})}, {"v", ints}}), {"out"});
  EXPECT_EQ(dtype.status().message(), "variable 'v' is float32 but its value is int32");
}

}  // namespace
}  // namespace tw
