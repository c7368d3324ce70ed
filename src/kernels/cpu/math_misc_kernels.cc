// Select and AddN (Cast is in cast_kernels.cc).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/cwise.h"
#include "kernels/cpu/math_kernels.h"

namespace tw {
namespace {

// Select(condition, t, e). Which semantics apply, in order:
//  1. condition, t and e of one shape: elementwise.
//  2. TensorFlow 1 row select: condition a vector whose length is t's first dim, t and e
//     of one shape of rank >= 2: condition[i] picks row i of t or of e.
//  3. Otherwise NumPy broadcasting of all three (SelectV2), e.g. a scalar condition.
// Case 2 wins where both 2 and 3 could apply (condition [n], t and e [n, n]).
// SelectV2 (TensorFlow 2's op) is the same kernel without case 2.
template <typename T>
class SelectOp : public OpKernel {
 public:
  explicit SelectOp(OpKernelConstruction& c) : OpKernel(c), row_select_(c.op() == "Select") {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& c = ctx.input(0);
    const Tensor& t = ctx.input(1);
    const Tensor& e = ctx.input(2);
    const bool* cp = c.data<bool>();
    const T* tp = t.data<T>();
    const T* ep = e.data<T>();
    if (c.shape() == t.shape() && t.shape() == e.shape()) {
      const int64_t n = t.NumElements();
      TW_ASSIGN_OR_RETURN(T * o, Output(ctx, TensorShape(t.shape()), t.RefCountIsOne() ? 1 : 2));
      cwise::ParallelRange(ctx, n, 1, [&](int64_t b, int64_t end) {
        for (int64_t i = b; i < end; ++i) o[i] = cp[i] ? tp[i] : ep[i];
      });
      return absl::OkStatus();
    }
    if (row_select_ && c.rank() == 1 && t.rank() >= 2 && t.shape() == e.shape() &&
        c.dim(0) == t.dim(0)) {
      const int64_t rows = t.dim(0), row = t.NumElements() / std::max<int64_t>(rows, 1);
      TW_ASSIGN_OR_RETURN(T * o, Output(ctx, TensorShape(t.shape()), 1));
      cwise::ParallelRange(ctx, rows, row, [&](int64_t b, int64_t end) {
        for (int64_t i = b; i < end; ++i) {
          const T* src = (cp[i] ? tp : ep) + i * row;
          T* dst = o + i * row;
          if (src != dst && row > 0) std::copy_n(src, row, dst);  // Strings are assigned, not memcpy'd.
        }
      });
      return absl::OkStatus();
    }
    cwise::BroadcastPlan plan;
    TW_RETURN_IF_ERROR(cwise::MakeBroadcastPlan({&c.shape(), &t.shape(), &e.shape()}, &plan));
    const int forward = plan.out_shape == t.shape() ? 1 : (plan.out_shape == e.shape() ? 2 : -1);
    TW_ASSIGN_OR_RETURN(T * o, Output(ctx, plan.out_shape, forward));
    const int64_t sc = plan.inner_stride(0), st = plan.inner_stride(1), se = plan.inner_stride(2);
    cwise::ParallelRange(ctx, plan.out_shape.num_elements(), 1, [&](int64_t b, int64_t end) {
      cwise::ForEachRun(plan, b, end, [&](int64_t out, int64_t len, const int64_t* off) {
        const bool* ci = cp + off[0];
        const T* ti = tp + off[1];
        const T* ei = ep + off[2];
        T* oi = o + out;
        for (int64_t i = 0; i < len; ++i) oi[i] = ci[i * sc] ? ti[i * st] : ei[i * se];
      });
    });
    return absl::OkStatus();
  }

 private:
  // Output 0, reusing input `in` (t or e) when possible; -1 always allocates.
  static absl::StatusOr<T*> Output(OpKernelContext& ctx, const TensorShape& shape, int in) {
    Tensor* out;
    if (in >= 0) {
      TW_ASSIGN_OR_RETURN(out,
                          ctx.forward_input_or_allocate_output(in, 0, shape, DTypeOf<T>::value));
    } else {
      TW_ASSIGN_OR_RETURN(out, ctx.allocate_output(0, shape, DTypeOf<T>::value));
    }
    return out->data<T>();
  }

  const bool row_select_;
};

// AddN: the sum of N tensors of one shape.
template <typename T, typename F>
class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const int n_in = ctx.num_inputs();
    const TensorShape& shape = ctx.input(0).shape();
    for (int i = 1; i < n_in; ++i) {
      if (ctx.input(i).shape() != shape) {
        return absl::InvalidArgumentError(absl::StrCat(
            "AddN inputs must have the same shape: inputs[", i, "] has shape ",
            ctx.input(i).shape().DebugString(), " but inputs[0] has shape ", shape.DebugString()));
      }
    }
    if (n_in == 1) {
      ctx.set_output(0, ctx.input(0));
      return absl::OkStatus();
    }
    absl::InlinedVector<const T*, 8> in(n_in);
    for (int i = 0; i < n_in; ++i) in[i] = ctx.input(i).template data<T>();
    const int64_t n = shape.num_elements();
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.forward_input_or_allocate_output(0, 0, TensorShape(shape),
                                                                           DTypeOf<T>::value));
    T* o = out->template data<T>();
    cwise::ParallelRange(ctx, n, n_in, [&](int64_t b, int64_t e) {
      // Blocks that stay in cache while every input is added in.
      constexpr int64_t kBlock = 4096;
      for (int64_t s = b; s < e; s += kBlock) {
        const int64_t end = std::min(e, s + kBlock);
        for (int64_t i = s; i < end; ++i) o[i] = cwise::WrapAdd(in[0][i], in[1][i]);
        for (int k = 2; k < n_in; ++k) {
          const T* a = in[k];
          for (int64_t i = s; i < end; ++i) o[i] = cwise::WrapAdd(o[i], a[i]);
        }
      }
    });
    return absl::OkStatus();
  }
};

template <typename T, typename Unused>
using SelectKernel = SelectOp<T>;

}  // namespace

void RegisterMathMiscKernels(KernelRegistry& r) {
  cwise::RegisterCwise<SelectKernel, cwise::NumericOrBoolTypes>(r, "Select");
  cwise::RegisterCwise<SelectKernel, cwise::NumericOrBoolTypes>(r, "SelectV2");
  for (const char* op : {"Select", "SelectV2"}) {
    r.Register({op, kDeviceCpu, Factory<SelectOp<std::string>>(), "T", {DType::kString}});
  }
  cwise::RegisterCwise<AddNOp, cwise::NumericOrComplexTypes>(r, "AddN");
  RegisterCastKernels(r);
}

}  // namespace tw
