// MirrorPad (REFLECT: the edge not repeated; SYMMETRIC: repeated) and MirrorPadGrad (the
// padded gradient folded back onto the input), with TensorFlow's names and attrs.
#include <string>

#include "absl/strings/str_cat.h"
#include "ops/array_ops_pad.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// The paddings as [before0, after0, ...] when they are a Const, else false.
bool ConstPaddings(const InferenceContext& c, DimVector* flat) {
  const Tensor* value = c.input_tensor(1);
  if (value == nullptr) return false;
  flat->clear();
  for (int64_t i = 0; i < value->NumElements(); ++i) {
    flat->push_back(value->dtype() == DType::kInt32 ? value->data<int32_t>()[i] : value->data<int64_t>()[i]);
  }
  return true;
}

template <bool kGrad>
absl::Status MirrorPadShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(std::string mode, GetStringAttr(c.attrs(), "mode"));
  if (mode != "REFLECT" && mode != "SYMMETRIC") {
    return absl::InvalidArgumentError(absl::StrCat("mode must be REFLECT or SYMMETRIC, got '", mode, "'"));
  }
  const PartialShape& in = c.input_shape(0);
  TW_RETURN_IF_ERROR(array_util::CheckPaddingsShape(in, c.input_shape(1)));
  DimVector flat;
  if (!in.known_rank() || !ConstPaddings(c, &flat)) {
    c.set_output(0, in.known_rank() ? PartialShape::Unknown(in.rank()) : PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  DimVector out(in.dims().begin(), in.dims().end());
  for (int d = 0; d < in.rank(); ++d) {
    if (flat[2 * d] < 0 || flat[2 * d + 1] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("Paddings must be non-negative, got [", flat[2 * d], ", ",
                                                     flat[2 * d + 1], "] for dim ", d));
    }
    if (out[d] >= 0) out[d] += (kGrad ? -1 : 1) * (flat[2 * d] + flat[2 * d + 1]);
  }
  c.set_output(0, PartialShape(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayMirrorPadOps(OpRegistry& r) {
  for (const char* op : {"MirrorPad", "MirrorPadGrad"}) {
    const bool grad = std::string(op) == "MirrorPadGrad";
    r.Register(OpDefBuilder(op)
                   .Input("input: T")
                   .Input("paddings: Tpaddings")
                   .Output("output: T")
                   .Attr(grad ? "T: {float32, float64, int32, int64}" : "T: {bool, float32, float64, int32, int64}")
                   .Attr("Tpaddings: {int32, int64} = int32")
                   // TensorFlow's {'REFLECT', 'SYMMETRIC'}: checked by the shape function.
                   .Attr("mode: string")
                   .SetShapeFn(grad ? MirrorPadShape<true> : MirrorPadShape<false>));
  }
}

}  // namespace tw
