// DepthwiseConv2dNative and its two backprops on CPU. Each input channel c meets its own m
// filters: output channel c*m + j at (oy, ox) is the sum over the window of
// input[iy, ix, c] * filter[ky, kx, c, j]. The loops walk that sum directly (a depthwise
// filter is small; there is no GEMM to gain), the backprops walk the same index pairs and
// add into the input or filter gradient. NCHW tensors are transposed to NHWC and back.
#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/array_kernels.h"
#include "kernels/cpu/conv_kernel_base.h"
#include "kernels/cpu/nhwc.h"
#include "ops/conv_geometry.h"

namespace tw {
namespace {

using conv::Conv2DAttrs;
using conv::Conv2DShape;
using nhwc::CheckRank4;
using nhwc::Dims;
using nhwc::Transposed;

// Calls visit(input offset, filter offset, output offset) for every product of the
// depthwise convolution of one batch element, offsets relative to that element's image
// and output; a window position in the padding contributes nothing.
template <typename Visit>
void ForEachProduct(const Conv2DShape& s, const Conv2DAttrs& a, int64_t m, Visit visit) {
  for (int64_t oy = 0; oy < s.out_h; ++oy) {
    for (int64_t ox = 0; ox < s.out_w; ++ox) {
      const int64_t out_base = (oy * s.out_w + ox) * s.out_c;
      for (int64_t ky = 0; ky < s.k_h; ++ky) {
        const int64_t iy = oy * a.stride_h - s.pad_top + ky * a.dilation_h;
        if (iy < 0 || iy >= s.in_h) continue;
        for (int64_t kx = 0; kx < s.k_w; ++kx) {
          const int64_t ix = ox * a.stride_w - s.pad_left + kx * a.dilation_w;
          if (ix < 0 || ix >= s.in_w) continue;
          const int64_t in_base = (iy * s.in_w + ix) * s.in_c;
          const int64_t f_base = (ky * s.k_w + kx) * s.in_c * m;
          for (int64_t c = 0; c < s.in_c; ++c) {
            for (int64_t j = 0; j < m; ++j) visit(in_base + c, f_base + c * m + j, out_base + c * m + j);
          }
        }
      }
    }
  }
}

class DepthwiseKernelBase : public conv::ConvKernelBase {
 public:
  explicit DepthwiseKernelBase(OpKernelConstruction& c) : conv::ConvKernelBase(c, "depthwise convolution") {}

 protected:
  // The geometry for an NHWC input and a [kh, kw, c, m] filter; out_backprop, when given,
  // must have the output's shape. *m gets the channel multiplier.
  absl::StatusOr<Conv2DShape> Geometry(const std::array<int64_t, 4>& in, const std::array<int64_t, 4>& filter,
                                       const Tensor* out_backprop, int64_t* m) const {
    if (in[3] != filter[2]) {
      return absl::InvalidArgumentError(absl::StrCat("input has ", in[3],
                                                     " channels but the depthwise filter expects ", filter[2],
                                                     " (filter shape [", absl::StrJoin(filter, ","), "])"));
    }
    *m = filter[3];
    return conv::ConvKernelBase::Geometry(in, {filter[0], filter[1], filter[2], in[3] * filter[3]}, out_backprop);
  }
};

template <typename T>
class DepthwiseConv2dNativeOp : public DepthwiseKernelBase {
 public:
  using DepthwiseKernelBase::DepthwiseKernelBase;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(0), "input"));
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(1), "filter"));
    const Tensor input = Nhwc<T>(ctx.input(0));
    const Tensor& filter = ctx.input(1);
    int64_t m = 0;
    TW_ASSIGN_OR_RETURN(Conv2DShape s, Geometry(Dims(input), Dims(filter), nullptr, &m));
    nhwc::Output out;
    TW_RETURN_IF_ERROR(out.Allocate(ctx, {s.batch, s.out_h, s.out_w, s.out_c}, input.dtype(), attrs_.nchw));
    T* y = out.nhwc().data<T>();
    std::fill(y, y + out.nhwc().NumElements(), T(0));
    const T* f = filter.data<T>();
    for (int64_t n = 0; n < s.batch; ++n) {
      const T* x = input.data<T>() + n * s.in_h * s.in_w * s.in_c;
      T* yn = y + n * s.out_h * s.out_w * s.out_c;
      ForEachProduct(s, attrs_, m, [&](int64_t i, int64_t k, int64_t o) { yn[o] += x[i] * f[k]; });
    }
    out.Finish<T>();
    return absl::OkStatus();
  }
};

template <typename T>
class DepthwiseConv2dNativeBackpropInputOp : public DepthwiseKernelBase {
 public:
  using DepthwiseKernelBase::DepthwiseKernelBase;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(auto sizes, conv::SizesInput(ctx.input(0), "input_sizes"));
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(1), "filter"));
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(2), "out_backprop"));
    const Tensor& filter = ctx.input(1);
    const Tensor dy = Nhwc<T>(ctx.input(2));
    int64_t m = 0;
    TW_ASSIGN_OR_RETURN(Conv2DShape s, Geometry(conv::ToNhwc(sizes, attrs_.nchw), Dims(filter), &dy, &m));
    nhwc::Output out;
    TW_RETURN_IF_ERROR(out.Allocate(ctx, {s.batch, s.in_h, s.in_w, s.in_c}, dy.dtype(), attrs_.nchw));
    T* dx = out.nhwc().data<T>();
    std::fill(dx, dx + out.nhwc().NumElements(), T(0));
    const T* f = filter.data<T>();
    for (int64_t n = 0; n < s.batch; ++n) {
      T* dxn = dx + n * s.in_h * s.in_w * s.in_c;
      const T* dyn = dy.data<T>() + n * s.out_h * s.out_w * s.out_c;
      ForEachProduct(s, attrs_, m, [&](int64_t i, int64_t k, int64_t o) { dxn[i] += dyn[o] * f[k]; });
    }
    out.Finish<T>();
    return absl::OkStatus();
  }
};

template <typename T>
class DepthwiseConv2dNativeBackpropFilterOp : public DepthwiseKernelBase {
 public:
  using DepthwiseKernelBase::DepthwiseKernelBase;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(0), "input"));
    TW_ASSIGN_OR_RETURN(auto filter_sizes, conv::SizesInput(ctx.input(1), "filter_sizes"));
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(2), "out_backprop"));
    const Tensor input = Nhwc<T>(ctx.input(0));
    const Tensor dy = Nhwc<T>(ctx.input(2));
    int64_t m = 0;
    TW_ASSIGN_OR_RETURN(Conv2DShape s, Geometry(Dims(input), filter_sizes, &dy, &m));
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(DimVector(filter_sizes.begin(), filter_sizes.end())));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, dy.dtype()));
    T* df = out->data<T>();
    std::fill(df, df + out->NumElements(), T(0));
    for (int64_t n = 0; n < s.batch; ++n) {
      const T* x = input.data<T>() + n * s.in_h * s.in_w * s.in_c;
      const T* dyn = dy.data<T>() + n * s.out_h * s.out_w * s.out_c;
      ForEachProduct(s, attrs_, m, [&](int64_t i, int64_t k, int64_t o) { df[k] += x[i] * dyn[o]; });
    }
    return absl::OkStatus();
  }
};

}  // namespace

// Called from RegisterConvKernels (conv_kernels.cc), so that cpu_kernels.h stays as it is.
void RegisterDepthwiseConvKernels(KernelRegistry& r) {
  r.Register({"DepthwiseConv2dNative", kDeviceCpu, TypedFactory<DepthwiseConv2dNativeOp, KernelTypes::kFloating>(),
              "", {}});
  r.Register({"DepthwiseConv2dNativeBackpropInput", kDeviceCpu,
              TypedFactory<DepthwiseConv2dNativeBackpropInputOp, KernelTypes::kFloating>(), "", {}});
  r.Register({"DepthwiseConv2dNativeBackpropFilter", kDeviceCpu,
              TypedFactory<DepthwiseConv2dNativeBackpropFilterOp, KernelTypes::kFloating>(), "", {}});
}

}  // namespace tw
