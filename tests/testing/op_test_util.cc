#include "testing/op_test_util.h"

#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "runtime/local_session.h"

namespace tw::testing {

AttrValue IntList(std::vector<int64_t> v) { return MakeAttr(absl::Span<const int64_t>(v)); }

absl::StatusOr<Node*> BuildOp(FlowGraph& graph, const std::string& op,
                              const std::vector<OpInput>& inputs, AttrMap attrs, bool feed) {
  TW_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global().Find(op));
  std::vector<DType> types;
  for (const OpInput& in : inputs) types.push_back(in.dtype);
  InferAttrsFromInputs(*def, types, attrs);
  NodeSpec spec{"op", op, {}, "", std::move(attrs)};
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeSpec in{absl::StrCat("input", i), "Const", {}, "", {}};
    in.attrs["dtype"] = MakeAttr(inputs[i].dtype);
    if (feed || inputs[i].shape) {
      in.op = "Placeholder";
      if (inputs[i].shape) in.attrs["shape"] = MakeAttr(*inputs[i].shape);
    } else {
      in.attrs["value"] = MakeAttr(inputs[i].value);
    }
    TW_ASSIGN_OR_RETURN(Node * n, graph.AddNode(std::move(in)));
    spec.inputs.push_back(NodeInput{n, 0});
  }
  return graph.AddNode(std::move(spec));
}

absl::StatusOr<std::vector<PartialShape>> InferShapes(const std::string& op,
                                                      const std::vector<OpInput>& inputs,
                                                      AttrMap attrs) {
  FlowGraph graph;
  TW_ASSIGN_OR_RETURN(Node * node, BuildOp(graph, op, inputs, std::move(attrs), false));
  std::vector<PartialShape> shapes;
  for (int i = 0; i < node->num_outputs(); ++i) shapes.push_back(node->output_shape(i));
  return shapes;
}

absl::StatusOr<PartialShape> InferShape(const std::string& op, const std::vector<OpInput>& inputs,
                                        AttrMap attrs, int index) {
  TW_ASSIGN_OR_RETURN(std::vector<PartialShape> shapes, InferShapes(op, inputs, std::move(attrs)));
  if (index < 0 || index >= static_cast<int>(shapes.size())) {
    return absl::OutOfRangeError(
        absl::StrCat(op, " has ", shapes.size(), " outputs, no output ", index));
  }
  return shapes[index];
}

absl::StatusOr<std::vector<Tensor>> RunOpWith(const std::string& op,
                                              const std::vector<OpInput>& inputs, AttrMap attrs,
                                              bool feed, std::vector<PartialShape>* inferred) {
  FlowGraph graph;
  TW_ASSIGN_OR_RETURN(Node * node, BuildOp(graph, op, inputs, std::move(attrs), feed));
  std::vector<std::string> fetches;
  for (int i = 0; i < node->num_outputs(); ++i) {
    fetches.push_back(absl::StrCat("op:", i));
    if (inferred) inferred->push_back(node->output_shape(i));
  }
  FeedList feeds;
  if (feed) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      feeds.emplace_back(absl::StrCat("input", i), inputs[i].value);
    }
  }
  LocalSession session(SessionOptions{});
  TW_RETURN_IF_ERROR(session.Extend(graph.ToGraphDef()));
  std::vector<Tensor> outputs;
  std::vector<std::string> targets;
  if (fetches.empty()) targets.push_back("op");
  TW_RETURN_IF_ERROR(session.Run(feeds, fetches, targets, &outputs));
  return outputs;
}

namespace {

std::vector<OpInput> Values(const std::vector<Tensor>& inputs) {
  return std::vector<OpInput>(inputs.begin(), inputs.end());
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> RunOpFed(const std::string& op,
                                             const std::vector<Tensor>& inputs, AttrMap attrs) {
  return RunOpWith(op, Values(inputs), std::move(attrs), /*feed=*/true);
}

Tensor RunOpFedOk(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs) {
  auto out = RunOpFed(op, inputs, std::move(attrs));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->empty()) return Tensor();
  return (*out)[0];
}

std::vector<Tensor> RunBoth(const std::string& op, const std::vector<Tensor>& inputs,
                            AttrMap attrs) {
  std::vector<PartialShape> inferred;
  auto with_consts = RunOpWith(op, Values(inputs), attrs, /*feed=*/false, &inferred);
  auto fed = RunOpWith(op, Values(inputs), attrs, /*feed=*/true);
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

Tensor RunBoth1(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs) {
  auto out = RunBoth(op, inputs, std::move(attrs));
  return out.empty() ? Tensor() : out[0];
}

::testing::AssertionResult FailsBoth(const std::string& op, const std::vector<Tensor>& inputs,
                                     AttrMap attrs, const std::string& substring,
                                     absl::StatusCode fed_code) {
  auto with_consts = InferShapes(op, Values(inputs), attrs);
  auto fed = RunOpFed(op, inputs, attrs);
  auto a = StatusIs(with_consts.status(), absl::StatusCode::kInvalidArgument, substring);
  if (!a) return a << " (with constant inputs)";
  auto b = StatusIs(fed.status(), fed_code, substring);
  if (!b) return b << " (with fed inputs)";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult FailsFed(const std::string& op, const std::vector<Tensor>& inputs,
                                    AttrMap attrs, const std::string& substring,
                                    absl::StatusCode code) {
  return StatusIs(RunOpFed(op, inputs, std::move(attrs)).status(), code, substring);
}

}  // namespace tw::testing
