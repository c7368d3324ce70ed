// Test helper for the math kernels: runs an op on fed placeholders of unknown shape, so
// that shape errors reach the kernel's own run-time checks instead of being caught by
// the shape function while the graph is built (as with testing::RunOp's constants).
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_MATH_TEST_UTIL_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_MATH_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "runtime/local_session.h"
#include "testing/test_util.h"

namespace tw::testing {

// Like RunOp, with each input a Placeholder (shape unknown) fed at run time. Type attrs
// are inferred from the inputs; list-length attrs ("N") must be in `attrs`.
inline absl::StatusOr<std::vector<Tensor>> RunOpFed(const std::string& op,
                                                    const std::vector<Tensor>& inputs,
                                                    AttrMap attrs = {}) {
  TW_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global().Find(op));
  size_t k = 0;
  for (const ArgDef& arg : def->inputs) {
    const int64_t n = arg.number_attr.empty() ? 1 : attrs.at(arg.number_attr).i();
    if (!arg.type_attr.empty() && !attrs.contains(arg.type_attr) && k < inputs.size()) {
      attrs[arg.type_attr] = MakeAttr(inputs[k].dtype());
    }
    k += n;
  }
  FlowGraph graph;
  NodeSpec spec{"op", op, {}, "", std::move(attrs)};
  FeedList feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeSpec p{absl::StrCat("input", i), "Placeholder", {}, "", {}};
    p.attrs["dtype"] = MakeAttr(inputs[i].dtype());
    TW_ASSIGN_OR_RETURN(Node * n, graph.AddNode(std::move(p)));
    spec.inputs.push_back(NodeInput{n, 0});
    feeds.emplace_back(absl::StrCat("input", i, ":0"), inputs[i]);
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

inline Tensor RunOpFedOk(const std::string& op, const std::vector<Tensor>& inputs,
                         AttrMap attrs = {}) {
  auto out = RunOpFed(op, inputs, std::move(attrs));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->empty()) return Tensor();
  return (*out)[0];
}

}  // namespace tw::testing

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_MATH_TEST_UTIL_H_
