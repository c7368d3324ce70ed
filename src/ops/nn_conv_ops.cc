// Conv2D and its two backprops (TensorFlow's schemas and attrs). The geometry is in
// conv_geometry.h; dims unknown at graph-build time stay unknown in the shapes.
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "ops/array_ops_internal.h"
#include "ops/conv_geometry.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

using conv::Conv2DAttrs;

// The known dims of a rank-4 shape input (-1 where unknown), or nullopt when the rank is.
std::optional<std::array<int64_t, 4>> Dims4(const InferenceContext& c, int i) {
  const PartialShape& s = c.input_shape(i);
  if (!s.known_rank()) return std::nullopt;
  return std::array<int64_t, 4>{s.dim(0), s.dim(1), s.dim(2), s.dim(3)};
}

// The output shape when input and filter dims are known; -1 in the dims that are not.
absl::Status Conv2DOutputShape(InferenceContext& c, const Conv2DAttrs& a, const std::optional<std::array<int64_t, 4>>& in,
                               const std::optional<std::array<int64_t, 4>>& filter, int output) {
  if (!in || !filter) {
    c.set_output(output, PartialShape::Unknown(4));
    return absl::OkStatus();
  }
  const std::array<int64_t, 4> nhwc = conv::ToNhwc(*in, a.nchw);
  const bool known = std::all_of(nhwc.begin() + 1, nhwc.end(), [](int64_t d) { return d >= 0; }) &&
                     std::all_of(filter->begin(), filter->end(), [](int64_t d) { return d >= 0; });
  std::array<int64_t, 4> out = {nhwc[0], -1, -1, (*filter)[3]};
  if (known) {
    TW_ASSIGN_OR_RETURN(conv::Conv2DShape s, conv::ComputeConv2DShape(a, nhwc, *filter));
    out[1] = s.out_h;
    out[2] = s.out_w;
  } else if (nhwc[3] >= 0 && (*filter)[2] >= 0 && nhwc[3] != (*filter)[2]) {
    return absl::InvalidArgumentError(absl::StrCat("input has ", nhwc[3], " channels but the filter expects ",
                                                   (*filter)[2]));
  }
  const std::array<int64_t, 4> dims = conv::FromNhwc(out, a.nchw);
  c.set_output(output, PartialShape(DimVector(dims.begin(), dims.end())));
  return absl::OkStatus();
}

absl::Status Conv2DShapeFn(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(Conv2DAttrs a, conv::ReadConv2DAttrs(c.attrs()));
  TW_RETURN_IF_ERROR(c.WithRank(0, 4));
  TW_RETURN_IF_ERROR(c.WithRank(1, 4));
  return Conv2DOutputShape(c, a, Dims4(c, 0), Dims4(c, 1), 0);
}

OpDefBuilder Conv2DAttrsOn(OpDefBuilder b) {
  return b.Attr("T: {float32, float64}")
      .Attr("strides: list(int)")
      .Attr("use_cudnn_on_gpu: bool = true")
      .Attr("padding: string")
      .Attr("explicit_paddings: list(int) = []")
      .Attr("data_format: string = 'NHWC'")
      .Attr("dilations: list(int) = [1, 1, 1, 1]");
}

}  // namespace

// The backprops (of Conv2D and DepthwiseConv2dNative) output the shape given by their
// sizes input (a constant, usually).
absl::Status ConvBackpropShapeFn(InferenceContext& c, int sizes_input, int tensor_input) {
  TW_RETURN_IF_ERROR(conv::ReadConv2DAttrs(c.attrs()).status());  // Checks the attrs.
  TW_RETURN_IF_ERROR(c.WithRank(tensor_input, 4));
  TW_RETURN_IF_ERROR(c.WithRank(2, 4));
  DimVector dims;
  if (array_util::ConstantDims(c, sizes_input, &dims)) {
    if (dims.size() != 4) {
      return absl::InvalidArgumentError(absl::StrCat("the sizes input must have 4 values, got ", dims.size()));
    }
    c.set_output(0, PartialShape(dims));
  } else {
    c.set_output(0, PartialShape::Unknown(4));
  }
  return absl::OkStatus();
}

void RegisterNnDepthwiseOps(OpRegistry& r);  // nn_depthwise_ops.cc

void RegisterNnConvOps(OpRegistry& r) {
  RegisterNnDepthwiseOps(r);
  r.Register(Conv2DAttrsOn(OpDefBuilder("Conv2D").Input("input: T").Input("filter: T").Output("output: T"))
                 .SetShapeFn(Conv2DShapeFn));
  r.Register(Conv2DAttrsOn(OpDefBuilder("Conv2DBackpropInput")
                               .Input("input_sizes: int32")
                               .Input("filter: T")
                               .Input("out_backprop: T")
                               .Output("output: T"))
                 .SetShapeFn([](InferenceContext& c) { return ConvBackpropShapeFn(c, 0, 1); }));
  r.Register(Conv2DAttrsOn(OpDefBuilder("Conv2DBackpropFilter")
                               .Input("input: T")
                               .Input("filter_sizes: int32")
                               .Input("out_backprop: T")
                               .Output("output: T"))
                 .SetShapeFn([](InferenceContext& c) { return ConvBackpropShapeFn(c, 1, 0); }));
}

}  // namespace tw
