// MaxPool, AvgPool and their gradients on CPU: direct loops over NHWC windows, channels
// innermost so the compiler vectorizes them; NCHW tensors are transposed around the same
// code. As TensorFlow: padding never wins a max and is left out of an average's count,
// and a max's gradient goes to the first maximal element of its window (row-major order).
#include <algorithm>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/array_kernels.h"
#include "kernels/cpu/cwise.h"
#include "kernels/cpu/nhwc.h"
#include "ops/pool_geometry.h"

namespace tw {
namespace {

using conv::Conv2DShape;
using nhwc::CheckRank4;
using nhwc::Dims;

// The input rows and columns of the window at output (oy, ox), clipped to the image.
struct Window {
  int64_t y0, y1, x0, x1;
  int64_t count() const { return (y1 - y0) * (x1 - x0); }
};

class PoolKernelBase : public OpKernel {
 public:
  explicit PoolKernelBase(OpKernelConstruction& c) : OpKernel(c) {
    auto attrs = pool::ReadPool2DAttrs(c.attrs());
    if (!attrs.ok()) {
      c.Fail(attrs.status());
      return;
    }
    attrs_ = *attrs;
  }

 protected:
  Window WindowAt(const Conv2DShape& s, int64_t oy, int64_t ox) const {
    const int64_t y = oy * attrs_.conv.stride_h - s.pad_top, x = ox * attrs_.conv.stride_w - s.pad_left;
    return {std::max<int64_t>(y, 0), std::min(y + attrs_.k_h, s.in_h), std::max<int64_t>(x, 0),
            std::min(x + attrs_.k_w, s.in_w)};
  }
  // The geometry of an NHWC input (dims in NHWC order).
  absl::StatusOr<Conv2DShape> Geometry(const std::array<int64_t, 4>& input_nhwc) const {
    return pool::ComputePool2DShape(attrs_, input_nhwc);
  }
  template <typename T>
  Tensor Nhwc(const Tensor& t) const {
    return attrs_.conv.nchw ? nhwc::Transposed<T>(t, true) : t;
  }
  // InvalidArgument unless `t` (NHWC) has the pooled output's shape.
  absl::Status CheckPooled(const Tensor& t, const Conv2DShape& s, const char* what) const {
    const std::array<int64_t, 4> want = {s.batch, s.out_h, s.out_w, s.in_c};
    if (Dims(t) != want) {
      return absl::InvalidArgumentError(absl::StrCat(what, " has shape ", t.shape().DebugString(),
                                                     " but the pooled output is [", absl::StrJoin(want, ","),
                                                     "] (NHWC)"));
    }
    return absl::OkStatus();
  }

  pool::Pool2DAttrs attrs_;
};

// The index (in the image, times channels) of the first maximal element of each channel
// in window w of NHWC image `x`; best holds the maxima.
template <typename T>
void ArgMaxInWindow(const T* x, const Conv2DShape& s, const Window& w, T* best, int64_t* index) {
  std::fill(best, best + s.in_c, std::numeric_limits<T>::lowest());
  std::fill(index, index + s.in_c, (w.y0 * s.in_w + w.x0) * s.in_c);
  for (int64_t iy = w.y0; iy < w.y1; ++iy) {
    for (int64_t ix = w.x0; ix < w.x1; ++ix) {
      const int64_t at = (iy * s.in_w + ix) * s.in_c;
      for (int64_t c = 0; c < s.in_c; ++c) {
        if (x[at + c] > best[c]) {
          best[c] = x[at + c];
          index[c] = at;
        }
      }
    }
  }
}

template <typename T, bool kMax>
class PoolOp : public PoolKernelBase {
 public:
  using PoolKernelBase::PoolKernelBase;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(0), "input"));
    const Tensor x = Nhwc<T>(ctx.input(0));
    TW_ASSIGN_OR_RETURN(Conv2DShape s, Geometry(Dims(x)));
    nhwc::Output out;
    TW_RETURN_IF_ERROR(out.Allocate(ctx, {s.batch, s.out_h, s.out_w, s.in_c}, x.dtype(), attrs_.conv.nchw));
    const T* in = x.data<T>();
    T* y = out.nhwc().data<T>();
    const int64_t cost = attrs_.k_h * attrs_.k_w * s.in_c * s.out_w;
    cwise::ParallelRange(ctx, s.batch * s.out_h, cost, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t n = row / s.out_h, oy = row % s.out_h;
        const T* image = in + n * s.in_h * s.in_w * s.in_c;
        for (int64_t ox = 0; ox < s.out_w; ++ox) {
          T* dst = y + (row * s.out_w + ox) * s.in_c;
          const Window w = WindowAt(s, oy, ox);
          std::fill(dst, dst + s.in_c, kMax ? std::numeric_limits<T>::lowest() : T(0));
          for (int64_t iy = w.y0; iy < w.y1; ++iy) {
            for (int64_t ix = w.x0; ix < w.x1; ++ix) {
              const T* src = image + (iy * s.in_w + ix) * s.in_c;
              for (int64_t c = 0; c < s.in_c; ++c) {
                if constexpr (kMax) {
                  dst[c] = src[c] > dst[c] ? src[c] : dst[c];
                } else {
                  dst[c] += src[c];
                }
              }
            }
          }
          if constexpr (!kMax) {
            const T scale = T(1) / T(w.count());
            for (int64_t c = 0; c < s.in_c; ++c) dst[c] *= scale;
          }
        }
      }
    });
    out.Finish<T>();
    return absl::OkStatus();
  }
};

// MaxPoolGrad(orig_input, orig_output, grad): each output's gradient added at its argmax.
// MaxPoolGradGrad(orig_input, orig_output, grad of orig_input's shape): each output takes
// the gradient at its argmax (the adjoint).
template <typename T, bool kGradGrad>
class MaxPoolGradOp : public PoolKernelBase {
 public:
  using PoolKernelBase::PoolKernelBase;
  absl::Status Compute(OpKernelContext& ctx) override {
    for (int i = 0; i < 3; ++i) TW_RETURN_IF_ERROR(CheckRank4(ctx.input(i), i == 0 ? "orig_input" : i == 1 ? "orig_output" : "grad"));
    const Tensor x = Nhwc<T>(ctx.input(0)), y = Nhwc<T>(ctx.input(1)), g = Nhwc<T>(ctx.input(2));
    TW_ASSIGN_OR_RETURN(Conv2DShape s, Geometry(Dims(x)));
    TW_RETURN_IF_ERROR(CheckPooled(y, s, "orig_output"));
    if (kGradGrad ? Dims(g) != Dims(x) : Dims(g) != Dims(y)) {
      return absl::InvalidArgumentError(absl::StrCat("grad has shape ", ctx.input(2).shape().DebugString(), " but ",
                                                     kGradGrad ? "orig_input" : "orig_output", " has ",
                                                     ctx.input(kGradGrad ? 0 : 1).shape().DebugString()));
    }
    nhwc::Output out;
    TW_RETURN_IF_ERROR(out.Allocate(ctx, kGradGrad ? Dims(y) : Dims(x), x.dtype(), attrs_.conv.nchw));
    T* result = out.nhwc().data<T>();
    if constexpr (!kGradGrad) std::fill(result, result + out.nhwc().NumElements(), T(0));
    const int64_t image = s.in_h * s.in_w * s.in_c, pooled = s.out_h * s.out_w * s.in_c;
    const int64_t cost = attrs_.k_h * attrs_.k_w * pooled;
    // One image per unit: a gradient's scatter stays within its image.
    cwise::ParallelRange(ctx, s.batch, cost, [&](int64_t begin, int64_t end) {
      std::vector<T> best(s.in_c);
      std::vector<int64_t> index(s.in_c);
      for (int64_t n = begin; n < end; ++n) {
        const T* xin = x.data<T>() + n * image;
        const T* grad = g.data<T>() + n * (kGradGrad ? image : pooled);
        T* dst = result + n * (kGradGrad ? pooled : image);
        for (int64_t oy = 0; oy < s.out_h; ++oy) {
          for (int64_t ox = 0; ox < s.out_w; ++ox) {
            ArgMaxInWindow(xin, s, WindowAt(s, oy, ox), best.data(), index.data());
            const int64_t at = (oy * s.out_w + ox) * s.in_c;
            for (int64_t c = 0; c < s.in_c; ++c) {
              if constexpr (kGradGrad) {
                dst[at + c] = grad[index[c] + c];
              } else {
                dst[index[c] + c] += grad[at + c];
              }
            }
          }
        }
      }
    });
    out.Finish<T>();
    return absl::OkStatus();
  }
};

// AvgPoolGrad(orig_input_shape, grad): each output's gradient spread evenly over the
// window's elements inside the image.
template <typename T>
class AvgPoolGradOp : public PoolKernelBase {
 public:
  using PoolKernelBase::PoolKernelBase;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(array_kernels::CheckVector(ctx.input(0), "orig_input_shape"));
    const DimVector v = array_kernels::IntValues(ctx.input(0));
    if (v.size() != 4 || std::any_of(v.begin(), v.end(), [](int64_t d) { return d < 0; })) {
      return absl::InvalidArgumentError(
          absl::StrCat("orig_input_shape must be 4 non-negative sizes, got ", ctx.input(0).DebugString()));
    }
    TW_RETURN_IF_ERROR(CheckRank4(ctx.input(1), "grad"));
    const Tensor g = Nhwc<T>(ctx.input(1));
    TW_ASSIGN_OR_RETURN(Conv2DShape s, Geometry(conv::ToNhwc({v[0], v[1], v[2], v[3]}, attrs_.conv.nchw)));
    TW_RETURN_IF_ERROR(CheckPooled(g, s, "grad"));
    nhwc::Output out;
    TW_RETURN_IF_ERROR(out.Allocate(ctx, {s.batch, s.in_h, s.in_w, s.in_c}, g.dtype(), attrs_.conv.nchw));
    T* dx = out.nhwc().data<T>();
    std::fill(dx, dx + out.nhwc().NumElements(), T(0));
    const int64_t image = s.in_h * s.in_w * s.in_c, pooled = s.out_h * s.out_w * s.in_c;
    cwise::ParallelRange(ctx, s.batch, attrs_.k_h * attrs_.k_w * pooled, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) {
        for (int64_t oy = 0; oy < s.out_h; ++oy) {
          for (int64_t ox = 0; ox < s.out_w; ++ox) {
            const Window w = WindowAt(s, oy, ox);
            const T* grad = g.data<T>() + n * pooled + (oy * s.out_w + ox) * s.in_c;
            const T scale = T(1) / T(w.count());
            for (int64_t iy = w.y0; iy < w.y1; ++iy) {
              for (int64_t ix = w.x0; ix < w.x1; ++ix) {
                T* dst = dx + n * image + (iy * s.in_w + ix) * s.in_c;
                for (int64_t c = 0; c < s.in_c; ++c) dst[c] += grad[c] * scale;
              }
            }
          }
        }
      }
    });
    out.Finish<T>();
    return absl::OkStatus();
  }
};

template <typename T>
using MaxPoolOp = PoolOp<T, true>;
template <typename T>
using AvgPoolOp = PoolOp<T, false>;
template <typename T>
using MaxPoolBackOp = MaxPoolGradOp<T, false>;
template <typename T>
using MaxPoolGradGradOp = MaxPoolGradOp<T, true>;

}  // namespace

void RegisterPoolKernels(KernelRegistry& r) {
  r.Register({"MaxPool", kDeviceCpu, TypedFactory<MaxPoolOp, KernelTypes::kFloating>(), "", {}});
  r.Register({"AvgPool", kDeviceCpu, TypedFactory<AvgPoolOp, KernelTypes::kFloating>(), "", {}});
  r.Register({"MaxPoolGrad", kDeviceCpu, TypedFactory<MaxPoolBackOp, KernelTypes::kFloating>(), "", {}});
  r.Register({"MaxPoolGradGrad", kDeviceCpu, TypedFactory<MaxPoolGradGradOp, KernelTypes::kFloating>(), "", {}});
  r.Register({"AvgPoolGrad", kDeviceCpu, TypedFactory<AvgPoolGradOp, KernelTypes::kFloating>(), "", {}});
}

}  // namespace tw
