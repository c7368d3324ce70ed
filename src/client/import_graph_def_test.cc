// tw::ImportGraphDef: prefixes, input maps (tensor and control), return elements, and the
// errors that leave the graph unchanged.
#include "tensorweave/import_graph_def.h"

#include <gtest/gtest.h>

#include "google/protobuf/text_format.h"
#include "graph/graph.h"
#include "tensorweave/proto/graph.pb.h"
#include "tensorweave/tensorweave.h"
#include "core/proto_namespace.h"

namespace tw {
namespace {

constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } }
  node { name: "y" op: "Mul" input: "x" input: "c" input: "^c" device: "/device:CPU:0"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "_class" value { list { s: "loc:@c" } } } }
)pb";

GraphDef Parse(const std::string& text) {
  GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

TEST(ImportGraphDefTest, PrefixInputMapAndReturnElements) {
  Graph g;
  Output two = constant(g, 2.0f, "two");
  Operation gate = constant(g, 0.0f, "gate").op();
  ImportGraphDefOptions options;
  options.prefix = "model";
  options.input_map["x"] = two;  // "x" means "x:0"
  options.control_input_map["c"] = gate;
  options.return_elements = {"y:0", "y", "x:0"};
  auto imported = ImportGraphDef(Parse(kGraph), options, &g);
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_EQ(imported->size(), 3u);
  EXPECT_TRUE((*imported)[0].is_tensor);
  EXPECT_EQ((*imported)[0].tensor.name(), "model/y:0");
  EXPECT_FALSE((*imported)[1].is_tensor);
  EXPECT_EQ((*imported)[1].operation.name(), "model/y");
  EXPECT_EQ((*imported)[2].tensor.name(), "two:0");  // a mapped tensor comes back as its mapping
  NodeDef y = (*imported)[1].operation.node()->ToNodeDef();
  EXPECT_EQ(y.input(0), "two");
  EXPECT_EQ(y.input(1), "model/c");
  EXPECT_EQ(y.input(2), "^gate");
  EXPECT_EQ(y.device(), "");  // as TF: the device of the op it is colocated with (c)
  EXPECT_EQ(y.attr().at("_class").list().s(0), "loc:@model/c");
  Session session(g);
  EXPECT_FLOAT_EQ(session.run((*imported)[0].tensor).scalar<float>(), 6.0f);
}

TEST(ImportGraphDefTest, EmptyPrefixMakesClashingNamesUnique) {
  Graph g;
  ASSERT_TRUE(ImportGraphDef(Parse(kGraph), {}, &g).ok());
  ImportGraphDefOptions options;
  options.return_elements = {"y:0"};
  auto again = ImportGraphDef(Parse(kGraph), options, &g);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)[0].tensor.name(), "y_1:0");
  EXPECT_EQ((*again)[0].operation.node()->ToNodeDef().input(1), "c_1");
}

TEST(ImportGraphDefTest, ErrorsNameTheProblemAndLeaveTheGraphUnchanged) {
  Graph g;
  const int before = g.num_operations();
  auto missing = ImportGraphDef(Parse(std::string(kGraph) + R"pb(node { name: "z" op: "Neg" input: "nope"
                                                              attr { key: "T" value { type: DT_FLOAT } } })pb"),
                                {}, &g);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(missing.status().message(), "Node 'z': Unknown input node 'nope'");
  auto duplicate = ImportGraphDef(Parse(std::string(kGraph) + R"pb(node { name: "x" op: "NoOp" })pb"), {}, &g);
  EXPECT_EQ(duplicate.status().message(), "Node 'x' is not unique");
  auto unknown = ImportGraphDef(Parse(R"pb(node { name: "f" op: "Frobnicate" })pb"), {}, &g);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("Op type not registered 'Frobnicate'"), std::string::npos);
  ImportGraphDefOptions unused;
  unused.input_map["q:0"] = constant(g, 1.0f, "q");
  const int with_q = g.num_operations();
  EXPECT_EQ(ImportGraphDef(Parse(kGraph), unused, &g).status().message(),
            "Attempted to map inputs that were not found in graph_def: [q:0]");
  ImportGraphDefOptions bad_return;
  bad_return.return_elements = {"nope:0"};
  EXPECT_EQ(ImportGraphDef(Parse(kGraph), bad_return, &g).status().message(),
            "Requested return tensor 'nope:0' not found in graph def");
  ImportGraphDefOptions wrong_dtype;
  wrong_dtype.input_map["x:0"] = constant(g, 1, "int_one");
  EXPECT_EQ(ImportGraphDef(Parse(kGraph), wrong_dtype, &g).status().code(), absl::StatusCode::kInvalidArgument);
  Graph other;
  ImportGraphDefOptions foreign;
  foreign.input_map["x:0"] = constant(other, 1.0f, "two");
  EXPECT_EQ(ImportGraphDef(Parse(kGraph), foreign, &g).status().message(),
            "input_map['x:0'] is a tensor of another graph");
  EXPECT_EQ(g.num_operations(), with_q + 1);  // only "int_one": no imported node stayed
  EXPECT_EQ(before + 1, with_q);
}

}  // namespace
}  // namespace tw
