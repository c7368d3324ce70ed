// The geometry of a 2-D convolution (Conv2D and its two backprops): attrs read and checked
// once, output size and padding computed as TensorFlow does, shared by the schemas
// (nn_conv_ops.cc) and the kernels (kernels/cpu/conv_kernels.cc).
#ifndef TENSORWEAVE_SRC_OPS_CONV_GEOMETRY_H_
#define TENSORWEAVE_SRC_OPS_CONV_GEOMETRY_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "graph/attr_value.h"

namespace tw::conv {

enum class Padding { kSame, kValid, kExplicit };

// The attrs strides, dilations, padding, explicit_paddings and data_format, in NHWC order
// whatever the data format (NCHW graphs are accepted; their kernels transpose).
struct Conv2DAttrs {
  bool nchw = false;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  Padding padding = Padding::kValid;
  std::array<int64_t, 4> explicit_pads = {0, 0, 0, 0};  // top, bottom, left, right
};
// InvalidArgument naming the attr for strides or dilations that are not 4 positive values
// with 1 in the batch and channel dims, an unknown padding or data format, or explicit
// paddings that are not 8 non-negative values (0 for batch and channels).
absl::StatusOr<Conv2DAttrs> ReadConv2DAttrs(const AttrMap& attrs);

// Sizes in NHWC order: input [n, h, w, c], filter [kh, kw, c, oc].
struct Conv2DShape {
  int64_t batch, in_h, in_w, in_c, k_h, k_w, out_c;
  int64_t out_h, out_w, pad_top, pad_left;
};
// Checks that the filter's input channels match and that the (dilated) window fits, and
// computes the output size and the padding before the first row and column.
absl::StatusOr<Conv2DShape> ComputeConv2DShape(const Conv2DAttrs& a, const std::array<int64_t, 4>& input_nhwc,
                                               const std::array<int64_t, 4>& filter);

// Reads a 4-value per-dim attr (strides, dilations, ksize) and returns its spatial values
// in NHWC terms: InvalidArgument naming the attr unless batch and channel are 1 and the
// spatial values positive.
absl::Status ReadSpatialPair(const AttrMap& attrs, const char* name, bool nchw, int64_t* h, int64_t* w);

// NCHW <-> NHWC for a dims array.
std::array<int64_t, 4> ToNhwc(const std::array<int64_t, 4>& dims, bool nchw);
std::array<int64_t, 4> FromNhwc(const std::array<int64_t, 4>& dims, bool nchw);

}  // namespace tw::conv

#endif  // TENSORWEAVE_SRC_OPS_CONV_GEOMETRY_H_
