// Test helpers for kernel tests: run an op on placeholders fed at run time (so shape
// functions see unknown shapes and the kernel's own checks run), and read the shape
// inferred for an op on given constant or unknown inputs.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_FED_TEST_UTIL_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_FED_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/graph.h"
#include "runtime/local_session.h"
#include "testing/test_util.h"

namespace tw::fed_testing {

// Fills unset type attrs from the inputs, as testing::RunOp does (single-tensor args only).
inline void InferTypeAttrs(const OpDef& def, const std::vector<Tensor>& inputs, AttrMap& attrs) {
  for (size_t i = 0; i < def.inputs.size() && i < inputs.size(); ++i) {
    const std::string& t = def.inputs[i].type_attr;
    if (!t.empty() && !attrs.contains(t)) attrs[t] = MakeAttr(inputs[i].dtype());
  }
}

// Like testing::RunOp, but every input is a Placeholder of unknown shape fed at run time.
inline absl::StatusOr<std::vector<Tensor>> RunOpFed(const std::string& op,
                                                    const std::vector<Tensor>& inputs,
                                                    AttrMap attrs = {}) {
  FlowGraph graph;
  TW_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global().Find(op));
  InferTypeAttrs(*def, inputs, attrs);
  NodeSpec spec{"op", op, {}, "", std::move(attrs)};
  FeedList feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeSpec p{absl::StrCat("feed", i), "Placeholder", {}, "", {}};
    p.attrs["dtype"] = MakeAttr(inputs[i].dtype());
    TW_ASSIGN_OR_RETURN(Node * n, graph.AddNode(std::move(p)));
    spec.inputs.push_back(NodeInput{n, 0});
    feeds.emplace_back(absl::StrCat("feed", i), inputs[i]);
  }
  TW_ASSIGN_OR_RETURN(Node * node, graph.AddNode(std::move(spec)));
  std::vector<std::string> fetches;
  for (int i = 0; i < node->num_outputs(); ++i) fetches.push_back(absl::StrCat("op:", i));
  LocalSession session(SessionOptions{});
  TW_RETURN_IF_ERROR(session.Extend(graph.ToGraphDef()));
  std::vector<Tensor> outputs;
  TW_RETURN_IF_ERROR(session.Run(feeds, fetches, {}, &outputs));
  return outputs;
}

// An input for InferShape: a constant value, or a placeholder of a partial shape.
struct ShapeInput {
  ShapeInput(Tensor value) : value(std::move(value)), dtype(this->value.dtype()) {}  // NOLINT
  ShapeInput(DType dtype, const PartialShape& shape) : dtype(dtype), shape(shape) {}
  Tensor value;
  DType dtype;
  PartialShape shape;
};

// The inferred shape of output `index` of `op` on the inputs, or the graph-building error.
inline absl::StatusOr<PartialShape> InferShape(const std::string& op,
                                               const std::vector<ShapeInput>& inputs,
                                               AttrMap attrs = {}, int index = 0) {
  FlowGraph graph;
  TW_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global().Find(op));
  for (size_t i = 0; i < def->inputs.size() && i < inputs.size(); ++i) {
    const std::string& t = def->inputs[i].type_attr;
    if (!t.empty() && !attrs.contains(t)) attrs[t] = MakeAttr(inputs[i].dtype);
  }
  NodeSpec spec{"op", op, {}, "", std::move(attrs)};
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeSpec p{absl::StrCat("in", i), "Const", {}, "", {}};
    p.attrs["dtype"] = MakeAttr(inputs[i].dtype);
    if (inputs[i].value.IsInitialized()) {
      p.attrs["value"] = MakeAttr(inputs[i].value);
    } else {
      p.op = "Placeholder";
      p.attrs["shape"] = MakeAttr(inputs[i].shape);
    }
    TW_ASSIGN_OR_RETURN(Node * n, graph.AddNode(std::move(p)));
    spec.inputs.push_back(NodeInput{n, 0});
  }
  TW_ASSIGN_OR_RETURN(Node * node, graph.AddNode(std::move(spec)));
  return node->output_shape(index);
}

}  // namespace tw::fed_testing

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_FED_TEST_UTIL_H_
