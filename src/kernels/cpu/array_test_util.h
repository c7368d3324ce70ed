// Test helpers for the array kernels (header-only; included by *_test.cc only).
//   RunBoth: runs an op on Const inputs (shape functions see the values) and again on
//   fed Placeholders of unknown shape (only the kernel sees them), checks that both agree
//   and that the statically inferred shapes match the real outputs.
//   InferShapes: the shapes a node gets when some inputs are Consts and others are
//   Placeholders with partial shapes.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_ARRAY_TEST_UTIL_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_ARRAY_TEST_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/graph.h"
#include "runtime/local_session.h"
#include "testing/test_util.h"

namespace tw::testing {

inline AttrValue IntList(std::vector<int64_t> v) { return MakeAttr(absl::Span<const int64_t>(v)); }

// One input of a test graph: a value (fed or constant) or, for InferShapes only, a
// Placeholder of a partial shape.
struct Input {
  Input(Tensor t) : value(std::move(t)), dtype(value.dtype()) {}  // NOLINT: terse tests.
  Input(DType d, PartialShape s) : dtype(d), shape(std::move(s)) {}
  Tensor value;
  DType dtype;
  std::optional<PartialShape> shape;  // Set: a Placeholder with this shape.
};

// Fills unset type and list-length attrs from the inputs, as RunOp does.
inline absl::Status CompleteAttrs(const std::string& op, const std::vector<Input>& inputs,
                                  AttrMap& attrs) {
  TW_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global().Find(op));
  size_t k = 0;
  for (size_t a = 0; a < def->inputs.size(); ++a) {
    const ArgDef& arg = def->inputs[a];
    int64_t n = 1;
    if (!arg.number_attr.empty()) {
      if (!attrs.contains(arg.number_attr)) {
        attrs[arg.number_attr] = MakeAttr(static_cast<int64_t>(
            inputs.size() - k - (def->inputs.size() - 1 - a)));
      }
      n = attrs[arg.number_attr].i();
    }
    if (!arg.type_attr.empty() && !attrs.contains(arg.type_attr) && k < inputs.size()) {
      attrs[arg.type_attr] = MakeAttr(inputs[k].dtype);
    }
    k += n;
  }
  return absl::OkStatus();
}

// Builds input nodes (Consts, or Placeholders when `feed` or the input has a shape) and
// the op node "op".
inline absl::StatusOr<Node*> BuildOp(FlowGraph& graph, const std::string& op,
                                     const std::vector<Input>& inputs, AttrMap attrs, bool feed) {
  TW_RETURN_IF_ERROR(CompleteAttrs(op, inputs, attrs));
  NodeSpec spec{"op", op, {}, "", std::move(attrs)};
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeSpec in{absl::StrCat("input", i), "Const", {}, "", {}};
    if (feed || inputs[i].shape) {
      in.op = "Placeholder";
      in.attrs["dtype"] = MakeAttr(inputs[i].dtype);
      if (inputs[i].shape) in.attrs["shape"] = MakeAttr(*inputs[i].shape);
    } else {
      in.attrs["value"] = MakeAttr(inputs[i].value);
      in.attrs["dtype"] = MakeAttr(inputs[i].dtype);
    }
    TW_ASSIGN_OR_RETURN(Node * n, graph.AddNode(std::move(in)));
    spec.inputs.push_back(NodeInput{n, 0});
  }
  return graph.AddNode(std::move(spec));
}

inline absl::StatusOr<std::vector<PartialShape>> InferShapes(const std::string& op,
                                                              const std::vector<Input>& inputs,
                                                              AttrMap attrs = {}) {
  FlowGraph graph;
  TW_ASSIGN_OR_RETURN(Node * node, BuildOp(graph, op, inputs, std::move(attrs), false));
  std::vector<PartialShape> shapes;
  for (int i = 0; i < node->num_outputs(); ++i) shapes.push_back(node->output_shape(i));
  return shapes;
}

// Runs the op with constant (feed == false) or fed inputs; also returns inferred shapes.
inline absl::StatusOr<std::vector<Tensor>> RunWith(const std::string& op,
                                                   const std::vector<Input>& inputs,
                                                   AttrMap attrs, bool feed,
                                                   std::vector<PartialShape>* inferred = nullptr) {
  FlowGraph graph;
  TW_ASSIGN_OR_RETURN(Node * node, BuildOp(graph, op, inputs, std::move(attrs), feed));
  std::vector<std::string> fetches;
  for (int i = 0; i < node->num_outputs(); ++i) {
    fetches.push_back(absl::StrCat("op:", i));
    if (inferred) inferred->push_back(node->output_shape(i));
  }
  FeedList feeds;
  if (feed)
    for (size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(absl::StrCat("input", i), inputs[i].value);
  LocalSession session(SessionOptions{});
  TW_RETURN_IF_ERROR(session.Extend(graph.ToGraphDef()));
  std::vector<Tensor> outputs;
  std::vector<std::string> targets;
  if (fetches.empty()) targets.push_back("op");
  TW_RETURN_IF_ERROR(session.Run(feeds, fetches, targets, &outputs));
  return outputs;
}

inline absl::StatusOr<std::vector<Tensor>> RunFed(const std::string& op,
                                                  const std::vector<Input>& inputs,
                                                  AttrMap attrs = {}) {
  return RunWith(op, inputs, std::move(attrs), true);
}

// Runs both ways; fails the test unless both succeed with equal outputs whose shapes
// fit the statically inferred ones. Returns the outputs.
inline std::vector<Tensor> RunBoth(const std::string& op, const std::vector<Input>& inputs,
                                   AttrMap attrs = {}) {
  std::vector<PartialShape> inferred;
  auto with_consts = RunWith(op, inputs, attrs, false, &inferred);
  auto fed = RunWith(op, inputs, attrs, true);
  EXPECT_TRUE(with_consts.ok()) << "with constant inputs: " << with_consts.status();
  EXPECT_TRUE(fed.ok()) << "with fed inputs: " << fed.status();
  if (!with_consts.ok() || !fed.ok()) return {};
  EXPECT_EQ(with_consts->size(), fed->size());
  for (size_t i = 0; i < with_consts->size() && i < fed->size(); ++i) {
    EXPECT_TENSOR_EQ((*fed)[i], (*with_consts)[i]) << "output " << i;
    EXPECT_TRUE(inferred[i].Matches((*with_consts)[i].shape()))
        << "output " << i << " inferred " << inferred[i].DebugString() << " but got "
        << (*with_consts)[i].shape().DebugString();
  }
  return *with_consts;
}

// The single output of RunBoth (uninitialized on failure).
inline Tensor RunBoth1(const std::string& op, const std::vector<Input>& inputs,
                       AttrMap attrs = {}) {
  auto out = RunBoth(op, inputs, std::move(attrs));
  return out.empty() ? Tensor() : out[0];
}

// Expects the op to fail with `substring` both when the graph is built (the shape
// function sees constant inputs) and when it runs (the kernel sees fed inputs).
inline ::testing::AssertionResult FailsBoth(const std::string& op, const std::vector<Input>& inputs,
                                            AttrMap attrs, const std::string& substring,
                                            absl::StatusCode fed_code = absl::StatusCode::kInvalidArgument) {
  auto with_consts = InferShapes(op, inputs, attrs);
  auto fed = RunWith(op, inputs, attrs, true);
  auto a = StatusIs(with_consts.status(), absl::StatusCode::kInvalidArgument, substring);
  if (!a) return a << " (with constant inputs)";
  auto b = StatusIs(fed.status(), fed_code, substring);
  if (!b) return b << " (with fed inputs)";
  return ::testing::AssertionSuccess();
}

// Expects only the kernel to fail (fed inputs); constant inputs may fail earlier.
inline ::testing::AssertionResult FailsFed(const std::string& op, const std::vector<Input>& inputs,
                                           AttrMap attrs, const std::string& substring,
                                           absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  return StatusIs(RunWith(op, inputs, std::move(attrs), true).status(), code, substring);
}

}  // namespace tw::testing

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_ARRAY_TEST_UTIL_H_
