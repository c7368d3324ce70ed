// DepthwiseConv2dNative and its two backprops (TensorFlow's schemas and attrs). A depthwise
// filter [kh, kw, c, m] convolves each input channel with its own m filters, so the output
// has c*m channels; the geometry is Conv2D's (conv_geometry.h) with that channel count.
#include <algorithm>
#include <array>
#include <optional>

#include "absl/strings/str_cat.h"
#include "ops/array_ops_internal.h"
#include "ops/conv_geometry.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {

absl::Status ConvBackpropShapeFn(InferenceContext& c, int sizes_input, int tensor_input);  // nn_conv_ops.cc

namespace {

using conv::Conv2DAttrs;

std::optional<std::array<int64_t, 4>> KnownDims4(const InferenceContext& c, int i) {
  const PartialShape& s = c.input_shape(i);
  if (!s.known_rank()) return std::nullopt;
  return std::array<int64_t, 4>{s.dim(0), s.dim(1), s.dim(2), s.dim(3)};
}

absl::Status DepthwiseShapeFn(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(Conv2DAttrs a, conv::ReadConv2DAttrs(c.attrs()));
  TW_RETURN_IF_ERROR(c.WithRank(0, 4));
  TW_RETURN_IF_ERROR(c.WithRank(1, 4));
  const auto in = KnownDims4(c, 0), filter = KnownDims4(c, 1);
  if (!in || !filter) {
    c.set_output(0, PartialShape::Unknown(4));
    return absl::OkStatus();
  }
  const std::array<int64_t, 4> nhwc = conv::ToNhwc(*in, a.nchw);
  const std::array<int64_t, 4>& f = *filter;
  if (nhwc[3] >= 0 && f[2] >= 0 && nhwc[3] != f[2]) {
    return absl::InvalidArgumentError(absl::StrCat("input has ", nhwc[3], " channels but the depthwise filter expects ",
                                                   f[2]));
  }
  const int64_t channels = nhwc[3] >= 0 ? nhwc[3] : f[2];
  const int64_t out_c = channels >= 0 && f[3] >= 0 ? channels * f[3] : -1;
  std::array<int64_t, 4> out = {nhwc[0], -1, -1, out_c};
  const bool known = std::all_of(nhwc.begin() + 1, nhwc.end(), [](int64_t d) { return d >= 0; }) &&
                     std::all_of(f.begin(), f.end(), [](int64_t d) { return d >= 0; });
  if (known) {
    TW_ASSIGN_OR_RETURN(conv::Conv2DShape s, conv::ComputeConv2DShape(a, nhwc, {f[0], f[1], f[2], out_c}));
    out[1] = s.out_h;
    out[2] = s.out_w;
  }
  const std::array<int64_t, 4> dims = conv::FromNhwc(out, a.nchw);
  c.set_output(0, PartialShape(DimVector(dims.begin(), dims.end())));
  return absl::OkStatus();
}

OpDefBuilder DepthwiseAttrsOn(OpDefBuilder b) {
  return b.Attr("T: {float32, float64}")
      .Attr("strides: list(int)")
      .Attr("padding: string")
      .Attr("explicit_paddings: list(int) = []")
      .Attr("data_format: string = 'NHWC'")
      .Attr("dilations: list(int) = [1, 1, 1, 1]");
}

}  // namespace

// Called from RegisterNnConvOps (nn_conv_ops.cc), so that ops.h stays as it is.
void RegisterNnDepthwiseOps(OpRegistry& r) {
  r.Register(DepthwiseAttrsOn(OpDefBuilder("DepthwiseConv2dNative").Input("input: T").Input("filter: T").Output(
                                  "output: T"))
                 .SetShapeFn(DepthwiseShapeFn));
  r.Register(DepthwiseAttrsOn(OpDefBuilder("DepthwiseConv2dNativeBackpropInput")
                                  .Input("input_sizes: int32")
                                  .Input("filter: T")
                                  .Input("out_backprop: T")
                                  .Output("output: T"))
                 .SetShapeFn([](InferenceContext& c) { return ConvBackpropShapeFn(c, 0, 1); }));
  r.Register(DepthwiseAttrsOn(OpDefBuilder("DepthwiseConv2dNativeBackpropFilter")
                                  .Input("input: T")
                                  .Input("filter_sizes: int32")
                                  .Input("out_backprop: T")
                                  .Output("output: T"))
                 .SetShapeFn([](InferenceContext& c) { return ConvBackpropShapeFn(c, 1, 0); }));
}

}  // namespace tw
