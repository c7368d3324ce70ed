// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on CPU: images are unrolled into
// patches (im2col: one row of kh*kw*c values per output position) so that the convolution
// is a GEMM with the filter seen as a [kh*kw*c, oc] matrix (gemm.h; the forward in cache-
// sized blocks of positions spread over the threads, conv_forward.h); the input gradient
// is the transposed product folded back (col2im), the filter gradient the patches'
// transpose times the output gradient, summed over images. NCHW tensors are transposed to
// NHWC and back around the same code.
#include <array>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/array_kernels.h"
#include "kernels/cpu/conv_filter_grad_avx512.h"
#include "kernels/cpu/conv_forward.h"
#include "kernels/cpu/conv_kernel_base.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/nhwc.h"
#include "ops/conv_geometry.h"

namespace tw {
namespace {

using conv::Conv2DAttrs;
using conv::Conv2DShape;

using nhwc::CheckRank4;
using nhwc::Dims;
using nhwc::Transposed;

// Patches of one [h, w, c] image: row p = oy * out_w + ox holds the window at that output
// position, (ky, kx, channel) fastest last; positions in the padding are 0.
template <typename T>
void Im2Col(const T* image, const Conv2DShape& s, const Conv2DAttrs& a, T* col) {
  const int64_t k = s.k_h * s.k_w * s.in_c;
  for (int64_t oy = 0; oy < s.out_h; ++oy) {
    for (int64_t ox = 0; ox < s.out_w; ++ox) {
      T* row = col + (oy * s.out_w + ox) * k;
      for (int64_t ky = 0; ky < s.k_h; ++ky) {
        const int64_t iy = oy * a.stride_h - s.pad_top + ky * a.dilation_h;
        for (int64_t kx = 0; kx < s.k_w; ++kx) {
          const int64_t ix = ox * a.stride_w - s.pad_left + kx * a.dilation_w;
          T* dst = row + (ky * s.k_w + kx) * s.in_c;
          if (iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w) {
            std::fill(dst, dst + s.in_c, T(0));
          } else {
            std::memcpy(dst, image + (iy * s.in_w + ix) * s.in_c, s.in_c * sizeof(T));
          }
        }
      }
    }
  }
}

// The adjoint of Im2Col: every patch value is added back where it came from.
template <typename T>
void Col2ImAdd(const T* col, const Conv2DShape& s, const Conv2DAttrs& a, T* image) {
  const int64_t k = s.k_h * s.k_w * s.in_c;
  for (int64_t oy = 0; oy < s.out_h; ++oy) {
    for (int64_t ox = 0; ox < s.out_w; ++ox) {
      const T* row = col + (oy * s.out_w + ox) * k;
      for (int64_t ky = 0; ky < s.k_h; ++ky) {
        const int64_t iy = oy * a.stride_h - s.pad_top + ky * a.dilation_h;
        if (iy < 0 || iy >= s.in_h) continue;
        for (int64_t kx = 0; kx < s.k_w; ++kx) {
          const int64_t ix = ox * a.stride_w - s.pad_left + kx * a.dilation_w;
          if (ix < 0 || ix >= s.in_w) continue;
          const T* src = row + (ky * s.k_w + kx) * s.in_c;
          T* dst = image + (iy * s.in_w + ix) * s.in_c;
          for (int64_t c = 0; c < s.in_c; ++c) dst[c] += src[c];
        }
      }
    }
  }
}

// The convolutions' shared kernel base, named for their errors.
class ConvKernelBase : public conv::ConvKernelBase {
 public:
  explicit ConvKernelBase(OpKernelConstruction& c) : conv::ConvKernelBase(c, "convolution") {}
};

template <typename T>
class Conv2DOp : public ConvKernelBase {
 public:
  using ConvKernelBase::ConvKernelBase;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(0), "input"));
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(1), "filter"));
    const Tensor input = Nhwc<T>(ctx.input(0));
    const Tensor& filter = ctx.input(1);
    TW_ASSIGN_OR_RETURN(Conv2DShape s, Geometry(Dims(input), Dims(filter), nullptr));
    nhwc::Output out;
    TW_RETURN_IF_ERROR(out.Allocate(ctx, {s.batch, s.out_h, s.out_w, s.out_c}, input.dtype(), attrs_.nchw));
    conv::Conv2DForward<T>(&ctx, input.data<T>(), filter.data<T>(), s, attrs_, out.nhwc().data<T>());
    out.Finish<T>();
    return absl::OkStatus();
  }
};

template <typename T>
class Conv2DBackpropInputOp : public ConvKernelBase {
 public:
  using ConvKernelBase::ConvKernelBase;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(auto sizes, conv::SizesInput(ctx.input(0), "input_sizes"));
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(1), "filter"));
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(2), "out_backprop"));
    const Tensor& filter = ctx.input(1);
    const Tensor dy = Nhwc<T>(ctx.input(2));
    TW_ASSIGN_OR_RETURN(Conv2DShape s, Geometry(conv::ToNhwc(sizes, attrs_.nchw), Dims(filter), &dy));
    nhwc::Output out;
    TW_RETURN_IF_ERROR(out.Allocate(ctx, {s.batch, s.in_h, s.in_w, s.in_c}, dy.dtype(), attrs_.nchw));
    Tensor& result = out.nhwc();
    if (conv::Conv2DBackpropInputDirect<T>(&ctx, dy.data<T>(), filter.data<T>(), s, attrs_, result.data<T>())) {
      out.Finish<T>();
      return absl::OkStatus();
    }
    std::fill(result.data<T>(), result.data<T>() + result.NumElements(), T(0));
    const int64_t p = s.out_h * s.out_w, k = s.k_h * s.k_w * s.in_c;
    std::vector<T> col(static_cast<size_t>(p * k));
    for (int64_t n = 0; n < s.batch; ++n) {
      // col[p, k] = dy[p, oc] * filter[k, oc]^T
      Gemm<T>(&ctx, dy.data<T>() + n * p * s.out_c, filter.data<T>(), col.data(), p, s.out_c, k, false, true);
      Col2ImAdd(col.data(), s, attrs_, result.data<T>() + n * s.in_h * s.in_w * s.in_c);
    }
    out.Finish<T>();
    return absl::OkStatus();
  }
};

template <typename T>
class Conv2DBackpropFilterOp : public ConvKernelBase {
 public:
  using ConvKernelBase::ConvKernelBase;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(0), "input"));
    TW_ASSIGN_OR_RETURN(auto filter_sizes, conv::SizesInput(ctx.input(1), "filter_sizes"));
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(2), "out_backprop"));
    const Tensor input = Nhwc<T>(ctx.input(0));
    const Tensor dy = Nhwc<T>(ctx.input(2));
    TW_ASSIGN_OR_RETURN(Conv2DShape s, Geometry(Dims(input), filter_sizes, &dy));
    const int64_t p = s.out_h * s.out_w, k = s.k_h * s.k_w * s.in_c;
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({s.k_h, s.k_w, s.in_c, s.out_c}), dy.dtype()));
    T* dw = out->data<T>();
    if (conv::Conv2DBackpropFilterDirect<T>(&ctx, input.data<T>(), dy.data<T>(), s, attrs_, dw)) {
      return absl::OkStatus();
    }
    std::fill(dw, dw + out->NumElements(), T(0));
    std::vector<T> col(static_cast<size_t>(p * k)), part(static_cast<size_t>(k * s.out_c));
    for (int64_t n = 0; n < s.batch; ++n) {
      Im2Col(input.data<T>() + n * s.in_h * s.in_w * s.in_c, s, attrs_, col.data());
      // part[k, oc] = col[p, k]^T * dy[p, oc]
      Gemm<T>(&ctx, col.data(), dy.data<T>() + n * p * s.out_c, part.data(), k, p, s.out_c, true, false);
      for (size_t i = 0; i < part.size(); ++i) dw[i] += part[i];
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterDepthwiseConvKernels(KernelRegistry& r);  // depthwise_conv_kernels.cc

void RegisterConvKernels(KernelRegistry& r) {
  RegisterDepthwiseConvKernels(r);
  r.Register({"Conv2D", kDeviceCpu, TypedFactory<Conv2DOp, KernelTypes::kFloating>(), "", {}});
  r.Register({"Conv2DBackpropInput", kDeviceCpu, TypedFactory<Conv2DBackpropInputOp, KernelTypes::kFloating>(), "", {}});
  r.Register({"Conv2DBackpropFilter", kDeviceCpu, TypedFactory<Conv2DBackpropFilterOp, KernelTypes::kFloating>(), "", {}});
}

}  // namespace tw
