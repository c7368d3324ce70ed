// The geometry of 2-D pooling (MaxPool, AvgPool and their gradients): TensorFlow's attrs
// ksize, strides, padding, explicit_paddings and data_format read and checked once, the
// output size and padding computed as for a convolution whose filter is the window.
// Shared by the schemas (nn_pool_ops.cc) and the kernels (kernels/cpu/pool_kernels.cc).
#ifndef TENSORWEAVE_SRC_OPS_POOL_GEOMETRY_H_
#define TENSORWEAVE_SRC_OPS_POOL_GEOMETRY_H_

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "ops/conv_geometry.h"

namespace tw::pool {

struct Pool2DAttrs {
  conv::Conv2DAttrs conv;  // strides, padding, data format (dilations 1)
  int64_t k_h = 1, k_w = 1;
};
// InvalidArgument naming the attr for a bad ksize/strides (4 values, 1 in batch and
// channels), padding or data format; explicit paddings must be smaller than the window
// (a window of padding only would have no value).
absl::StatusOr<Pool2DAttrs> ReadPool2DAttrs(const AttrMap& attrs);

// Sizes in NHWC order for an input [n, h, w, c]; the output has c channels too.
absl::StatusOr<conv::Conv2DShape> ComputePool2DShape(const Pool2DAttrs& a, const std::array<int64_t, 4>& input_nhwc);

}  // namespace tw::pool

#endif  // TENSORWEAVE_SRC_OPS_POOL_GEOMETRY_H_
