// String ops. StringJoin as TensorFlow: inputs are scalars or share one shape.
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// Scalars broadcast; every other input must have the same shape.
absl::Status StringJoinShape(InferenceContext& c) {
  PartialShape out = TensorShape();  // A scalar until a non-scalar input says otherwise.
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& in = c.input_shape(i);
    if (in.known_rank() && in.rank() == 0) continue;
    if (out.known_rank() && out.rank() == 0) {
      out = in;
      continue;
    }
    auto merged = out.Merge(in);
    if (!merged.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("StringJoin inputs must be scalars or have the same shape, got ",
                                                     out.DebugString(), " and ", in.DebugString()));
    }
    out = *merged;
  }
  c.set_output(0, out);
  return absl::OkStatus();
}

}  // namespace

void RegisterStringOps(OpRegistry& r) {
  r.Register(OpDefBuilder("StringJoin").Input("inputs: N * string").Output("output: string")
                 .Attr("N: int >= 0").Attr("separator: string = ''").SetShapeFn(StringJoinShape));
}

}  // namespace tw
