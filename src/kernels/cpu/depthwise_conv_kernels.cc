// DepthwiseConv2dNative and its two backprops on CPU. Each input channel c meets its own m
// filters: output channel c*m + j at (oy, ox) is the sum over the window of
// input[iy, ix, c] * filter[ky, kx, c, j]. The loops (depthwise_conv_loops.h) walk that
// sum directly (a depthwise filter is small; there is no GEMM to gain), threaded, with the
// contiguous channels innermost. NCHW tensors are transposed to NHWC and back.
#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/array_kernels.h"
#include "kernels/cpu/conv_kernel_base.h"
#include "kernels/cpu/depthwise_conv_loops.h"
#include "kernels/cpu/nhwc.h"
#include "ops/conv_geometry.h"

namespace tw {
namespace {

using conv::Conv2DAttrs;
using conv::Conv2DShape;
using nhwc::CheckRank4;
using nhwc::Dims;
using nhwc::Transposed;

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
    depthwise::Forward<T>(ctx, input.data<T>(), filter.data<T>(), s, attrs_, m, out.nhwc().data<T>());
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
    depthwise::BackpropInput<T>(ctx, dy.data<T>(), filter.data<T>(), s, attrs_, m, out.nhwc().data<T>());
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
    depthwise::BackpropFilter<T>(ctx, input.data<T>(), dy.data<T>(), s, attrs_, m, out->data<T>());
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
