// ClipByValue: max(min(t, hi), lo) per element, the order TensorFlow's kernel applies (it
// decides the answer when lo > hi); each bound is a scalar or has t's shape.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/cwise.h"

namespace tw {
namespace {

template <typename T>
class ClipByValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& t = ctx.input(0);
    const Tensor& lo = ctx.input(1);
    const Tensor& hi = ctx.input(2);
    const char* names[] = {"clip_value_min", "clip_value_max"};
    for (int i = 1; i <= 2; ++i) {
      const Tensor& b = ctx.input(i);
      if (b.rank() != 0 && b.shape() != t.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(names[i - 1], " must be either a scalar or have the same "
                                                       "shape as t: ", b.shape().DebugString(), " vs. ",
                                                       t.shape().DebugString()));
      }
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, t.shape(), t.dtype()));
    const T* tp = t.data<T>();
    const T* lp = lo.data<T>();
    const T* hp = hi.data<T>();
    const bool lo_scalar = lo.rank() == 0, hi_scalar = hi.rank() == 0;
    T* op = out->data<T>();
    cwise::ParallelRange(ctx, t.NumElements(), 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T l = lp[lo_scalar ? 0 : i], h = hp[hi_scalar ? 0 : i];
        const T x = tp[i];
        const T m = h < x ? h : x;  // NaN t stays NaN
        op[i] = m < l ? l : m;
      }
    });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterClipKernels(KernelRegistry& r) {
  r.Register({"ClipByValue", kDeviceCpu, TypedFactory<ClipByValueOp>(), "T",
              cwise::SupportedDTypes<cwise::NumericTypes>()});
}

}  // namespace tw
