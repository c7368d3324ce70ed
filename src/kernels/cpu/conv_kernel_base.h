// What the Conv2D and DepthwiseConv2dNative kernels share: their attrs read once at
// construction, the output geometry checked against an out_backprop, NCHW inputs seen as
// NHWC, and the 4 sizes of a backprop's input_sizes / filter_sizes input.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_CONV_KERNEL_BASE_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_CONV_KERNEL_BASE_H_

#include <algorithm>
#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/array_kernels.h"
#include "kernels/cpu/nhwc.h"
#include "ops/conv_geometry.h"

namespace tw::conv {

// The 4 ints of a sizes input (input_sizes / filter_sizes), checked.
inline absl::StatusOr<std::array<int64_t, 4>> SizesInput(const Tensor& t, const char* what) {
  TW_RETURN_IF_ERROR(array_kernels::CheckVector(t, what));
  const DimVector v = array_kernels::IntValues(t);
  if (v.size() != 4 || std::any_of(v.begin(), v.end(), [](int64_t d) { return d < 0; })) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be 4 non-negative sizes, got ", t.DebugString()));
  }
  return std::array<int64_t, 4>{v[0], v[1], v[2], v[3]};
}

class ConvKernelBase : public OpKernel {
 public:
  // `what` names the operation in errors ("convolution", "depthwise convolution").
  ConvKernelBase(OpKernelConstruction& c, const char* what) : OpKernel(c), what_(what) {
    auto attrs = ReadConv2DAttrs(c.attrs());
    if (!attrs.ok()) {
      c.Fail(attrs.status());
      return;
    }
    attrs_ = *attrs;
  }

 protected:
  // The geometry for an NHWC input of `input_nhwc` dims and a [kh, kw, in_c, out_c] filter;
  // out_backprop, when given, must have the output's shape.
  absl::StatusOr<Conv2DShape> Geometry(const std::array<int64_t, 4>& input_nhwc, const std::array<int64_t, 4>& filter,
                                       const Tensor* out_backprop_nhwc) const {
    TW_ASSIGN_OR_RETURN(Conv2DShape s, ComputeConv2DShape(attrs_, input_nhwc, filter));
    if (out_backprop_nhwc != nullptr &&
        nhwc::Dims(*out_backprop_nhwc) != std::array<int64_t, 4>{s.batch, s.out_h, s.out_w, s.out_c}) {
      return absl::InvalidArgumentError(absl::StrCat("out_backprop has shape ", out_backprop_nhwc->shape().DebugString(),
                                                     " but the ", what_, "'s output is [", s.batch, ",", s.out_h, ",",
                                                     s.out_w, ",", s.out_c, "] (NHWC)"));
    }
    return s;
  }
  template <typename T>
  Tensor Nhwc(const Tensor& t) const {
    return attrs_.nchw ? nhwc::Transposed<T>(t, true) : t;
  }
  Conv2DAttrs attrs_;

 private:
  const char* what_;
};

}  // namespace tw::conv

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_CONV_KERNEL_BASE_H_
