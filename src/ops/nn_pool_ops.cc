// MaxPool, AvgPool and their gradients (TensorFlow's schemas and attrs). The geometry is
// in pool_geometry.h; dims unknown at graph-build time stay unknown in the shapes.
#include <optional>

#include "absl/strings/str_cat.h"
#include "ops/array_ops_internal.h"
#include "ops/ops.h"
#include "ops/pool_geometry.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// The pooled shape of a rank-4 input (in its data format); -1 where a dim is unknown.
absl::StatusOr<PartialShape> PooledShape(const pool::Pool2DAttrs& a, const PartialShape& input) {
  if (!input.known_rank()) return PartialShape::Unknown(4);
  const std::array<int64_t, 4> nhwc =
      conv::ToNhwc({input.dim(0), input.dim(1), input.dim(2), input.dim(3)}, a.conv.nchw);
  std::array<int64_t, 4> out = {nhwc[0], -1, -1, nhwc[3]};
  if (nhwc[1] >= 0 || nhwc[2] >= 0) {
    // Each spatial dim is pooled on its own: an unknown one is stood in for by the window.
    TW_ASSIGN_OR_RETURN(conv::Conv2DShape s, pool::ComputePool2DShape(a, {0, nhwc[1] >= 0 ? nhwc[1] : a.k_h,
                                                                          nhwc[2] >= 0 ? nhwc[2] : a.k_w, 1}));
    if (nhwc[1] >= 0) out[1] = s.out_h;
    if (nhwc[2] >= 0) out[2] = s.out_w;
  }
  const std::array<int64_t, 4> dims = conv::FromNhwc(out, a.conv.nchw);
  return PartialShape(DimVector(dims.begin(), dims.end()));
}

absl::Status PoolShapeFn(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(pool::Pool2DAttrs a, pool::ReadPool2DAttrs(c.attrs()));
  TW_RETURN_IF_ERROR(c.WithRank(0, 4));
  TW_ASSIGN_OR_RETURN(PartialShape out, PooledShape(a, c.input_shape(0)));
  c.set_output(0, std::move(out));
  return absl::OkStatus();
}

// MaxPoolGrad(orig_input, orig_output, grad) and MaxPoolGradGrad: the output has the shape
// of input `like`; grad must have the shape of input `grad_like` once pooled or not.
absl::Status MaxPoolGradShapeFn(InferenceContext& c, int like) {
  TW_ASSIGN_OR_RETURN(pool::Pool2DAttrs a, pool::ReadPool2DAttrs(c.attrs()));
  for (int i = 0; i < 3; ++i) TW_RETURN_IF_ERROR(c.WithRank(i, 4));
  TW_ASSIGN_OR_RETURN(PartialShape pooled, PooledShape(a, c.input_shape(0)));
  if (!pooled.IsCompatibleWith(c.input_shape(1))) {
    return absl::InvalidArgumentError(absl::StrCat("orig_output has shape ", c.input_shape(1).DebugString(),
                                                   " but pooling orig_input gives ", pooled.DebugString()));
  }
  c.set_output(0, c.input_shape(like));
  return absl::OkStatus();
}

absl::Status AvgPoolGradShapeFn(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(pool::Pool2DAttrs a, pool::ReadPool2DAttrs(c.attrs()));
  (void)a;
  TW_RETURN_IF_ERROR(c.WithRank(0, 1));
  TW_RETURN_IF_ERROR(c.WithRank(1, 4));
  DimVector dims;
  if (array_util::ConstantDims(c, 0, &dims)) {
    if (dims.size() != 4) {
      return absl::InvalidArgumentError(absl::StrCat("orig_input_shape must have 4 values, got ", dims.size()));
    }
    c.set_output(0, PartialShape(dims));
  } else {
    c.set_output(0, PartialShape::Unknown(4));
  }
  return absl::OkStatus();
}

// TensorFlow's pooling attrs; `explicit_padding` for the ops whose TF schema has it.
OpDefBuilder PoolAttrsOn(OpDefBuilder b, bool explicit_padding) {
  b.Attr("T: {float32, float64} = float32").Attr("ksize: list(int)").Attr("strides: list(int)");
  if (explicit_padding) {
    b.Attr("padding: string").Attr("explicit_paddings: list(int) = []");
  } else {
    b.Attr("padding: string");
  }
  return b.Attr("data_format: string = 'NHWC'");
}

}  // namespace

void RegisterNnPoolOps(OpRegistry& r) {
  r.Register(PoolAttrsOn(OpDefBuilder("MaxPool").Input("input: T").Output("output: T"), true).SetShapeFn(PoolShapeFn));
  r.Register(PoolAttrsOn(OpDefBuilder("AvgPool").Input("value: T").Output("output: T"), false).SetShapeFn(PoolShapeFn));
  r.Register(PoolAttrsOn(OpDefBuilder("MaxPoolGrad")
                             .Input("orig_input: T")
                             .Input("orig_output: T")
                             .Input("grad: T")
                             .Output("output: T"),
                         true)
                 .SetShapeFn([](InferenceContext& c) { return MaxPoolGradShapeFn(c, 0); }));
  r.Register(PoolAttrsOn(OpDefBuilder("MaxPoolGradGrad")
                             .Input("orig_input: T")
                             .Input("orig_output: T")
                             .Input("grad: T")
                             .Output("output: T"),
                         false)
                 .SetShapeFn([](InferenceContext& c) { return MaxPoolGradShapeFn(c, 1); }));
  r.Register(PoolAttrsOn(OpDefBuilder("AvgPoolGrad").Input("orig_input_shape: int32").Input("grad: T").Output("output: T"),
                         false)
                 .SetShapeFn(AvgPoolGradShapeFn));
}

}  // namespace tw
