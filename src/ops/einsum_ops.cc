// Einsum (TensorFlow's op: `equation`, N inputs, N of 1 or 2): the output's shape from the
// equation and the inputs' shapes, with every label's sizes checked where known.
#include <map>

#include "absl/strings/str_cat.h"
#include "ops/einsum_equation.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status EinsumShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(std::string text, GetStringAttr(c.attrs(), "equation"));
  TW_ASSIGN_OR_RETURN(einsum::Equation eq, einsum::Parse(text, c.num_inputs()));
  std::vector<int> ranks;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input_shape(i);
    ranks.push_back(s.known_rank() ? s.rank() : -1);
  }
  auto expanded = einsum::Expand(eq, ranks);
  if (!expanded.ok()) {
    if (absl::IsInvalidArgument(expanded.status()) && expanded.status().message().find("needs the inputs' ranks") !=
                                                          std::string::npos) {
      c.set_output(0, PartialShape::UnknownRank());
      return absl::OkStatus();
    }
    return expanded.status();
  }
  // label -> size (-1 unknown); broadcast labels take the size that is not 1.
  std::map<int, int64_t> size;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input_shape(i);
    if (!s.known_rank()) continue;
    for (int d = 0; d < s.rank(); ++d) {
      const int label = expanded->inputs[i][d];
      const int64_t n = s.dim(d);
      const bool broadcast = label >= einsum::kFirstBroadcast;
      auto [it, fresh] = size.emplace(label, n);
      if (fresh) continue;
      if (n < 0) {  // an unknown dim may be what a broadcast 1 stretches to
        if (broadcast && it->second == 1) it->second = -1;
        continue;
      }
      if (it->second < 0 || (broadcast && it->second == 1)) {
        if (!(broadcast && n == 1 && it->second < 0)) it->second = n;
      } else if (it->second != n && !(broadcast && n == 1)) {
        return absl::InvalidArgumentError(absl::StrCat("Einsum: equation '", text, "': dimension ", d, " of input ", i,
                                                       " is ", n, " where the same label is ", it->second));
      }
    }
  }
  DimVector dims;
  for (int label : expanded->output) dims.push_back(size.count(label) ? size[label] : -1);
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

}  // namespace

void RegisterEinsumOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Einsum")
                 .Input("inputs: N * T")
                 .Output("output: T")
                 .Attr("equation: string")
                 .Attr("N: int >= 1")
                 .Attr("T: {float32, float64, int32, int64}")
                 .SetShapeFn(EinsumShape));
}

}  // namespace tw
