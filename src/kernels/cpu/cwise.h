// Helpers for elementwise kernels: NumPy broadcasting plans that collapse adjacent dims
// and iterate any rank without per-rank templates, a parallel loop that stays inline
// (no std::function, no thread hand-off) for small work, dtype-set traits that drive
// kernel factories, and BinaryOp<T, F>, the broadcasting binary kernel.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_CWISE_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_CWISE_H_

#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "tensorweave/status.h"
#include "tensorweave/tensor.h"

namespace tw::cwise {

// ThreadPool::ParallelFor only splits work of at least two 50 µs blocks; below that we
// call the body directly and skip building a std::function.
inline constexpr int64_t kInlineCostNs = 100000;

// Calls fn(begin, end) over [0, n), split over the intra-op pool when n * cost_ns is large.
template <typename Fn>
void ParallelRange(const OpKernelContext& ctx, int64_t n, int64_t cost_ns, Fn&& fn) {
  if (n <= 0) return;
  if (n * cost_ns < kInlineCostNs) {  // n <= 2^40 and costs are small: no overflow.
    fn(int64_t{0}, n);
    return;
  }
  ctx.ParallelFor(n, cost_ns, [&fn](int64_t begin, int64_t end) { fn(begin, end); });
}

// ---------------------------------------------------------------------------------------
// Broadcasting.

inline constexpr int kMaxBroadcastInputs = 3;

// How to walk the output of a broadcast: the output shape, and the output's dims after
// dropping size-1 dims and merging neighbours that broadcast the same way, with each
// input's element stride per collapsed dim (0 where the input is broadcast).
struct BroadcastPlan {
  TensorShape out_shape;
  int num_inputs = 0;
  int rank = 0;  // Collapsed rank, at least 1.
  int64_t dims[kMaxRank];
  int64_t strides[kMaxBroadcastInputs][kMaxRank];

  // Per-element step of input k along the innermost collapsed dim: 0 or 1.
  int64_t inner_stride(int k) const { return strides[k][rank - 1]; }
};

// Plans the NumPy broadcast of up to 3 shapes. InvalidArgument
// "Incompatible shapes: [2,3] vs. [4]" when they do not broadcast.
absl::Status MakeBroadcastPlan(std::initializer_list<const TensorShape*> shapes,
                               BroadcastPlan* plan);

// The "Incompatible shapes: [a] vs. [b] ..." error.
absl::Status IncompatibleShapesError(std::initializer_list<const TensorShape*> shapes);

// Visits output elements [begin, end) of `plan` as runs along the innermost collapsed
// dim: fn(out_offset, length, in_offsets), where in_offsets[k] is input k's element
// offset at the start of the run (advancing by plan.inner_stride(k) per element).
template <typename Fn>
void ForEachRun(const BroadcastPlan& p, int64_t begin, int64_t end, Fn&& fn) {
  const int r = p.rank, n_in = p.num_inputs;
  const int64_t inner = p.dims[r - 1];
  int64_t coord[kMaxRank];
  int64_t off[kMaxBroadcastInputs] = {0, 0, 0};
  int64_t rem = begin;
  for (int d = r - 1; d >= 0; --d) {
    coord[d] = rem % p.dims[d];
    rem /= p.dims[d];
    for (int k = 0; k < n_in; ++k) off[k] += coord[d] * p.strides[k][d];
  }
  int64_t pos = begin;
  while (pos < end) {
    const int64_t len = std::min(end - pos, inner - coord[r - 1]);
    fn(pos, len, static_cast<const int64_t*>(off));
    pos += len;
    coord[r - 1] += len;
    if (coord[r - 1] < inner) {
      for (int k = 0; k < n_in; ++k) off[k] += len * p.strides[k][r - 1];
      continue;
    }
    // End of a row: rewind the inner dim and carry into the outer ones (odometer).
    for (int k = 0; k < n_in; ++k) off[k] += (len - inner) * p.strides[k][r - 1];
    coord[r - 1] = 0;
    for (int d = r - 2; d >= 0; --d) {
      for (int k = 0; k < n_in; ++k) off[k] += p.strides[k][d];
      if (++coord[d] < p.dims[d]) break;
      for (int k = 0; k < n_in; ++k) off[k] -= p.dims[d] * p.strides[k][d];
      coord[d] = 0;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Dtype sets. A functor inherits one; factories and registrations read it.

struct FloatTypes {
  template <typename T>
  static constexpr bool kSupports = std::is_floating_point_v<T>;
};
struct NumericTypes {
  template <typename T>
  static constexpr bool kSupports = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
};
struct NumericOrBoolTypes {
  template <typename T>
  static constexpr bool kSupports = std::is_arithmetic_v<T>;
};
struct BoolTypes {
  template <typename T>
  static constexpr bool kSupports = std::is_same_v<T, bool>;
};
// The sets above plus complex64 and complex128, for the ops TensorFlow defines on them.
template <typename Set>
struct OrComplex {
  template <typename T>
  static constexpr bool kSupports = Set::template kSupports<T> || kIsComplex<T>;
};
using NumericOrComplexTypes = OrComplex<NumericTypes>;
using FloatOrComplexTypes = OrComplex<FloatTypes>;
using NumericBoolOrComplexTypes = OrComplex<NumericOrBoolTypes>;

// VisitPod plus VisitComplex: the dtypes the elementwise kernels are instantiated for.
template <typename Fn>
bool VisitPodOrComplex(DType dtype, Fn&& fn) {
  return VisitPod(dtype, fn) || VisitComplex(dtype, fn);
}

// The dtypes among float32/float64/int32/int64/bool/complex64/complex128 that `Set` accepts.
template <typename Set>
std::vector<DType> SupportedDTypes() {
  std::vector<DType> out;
  for (DType d : {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64, DType::kBool, DType::kComplex64,
                  DType::kComplex128}) {
    VisitPodOrComplex(d, [&](auto tag) {
      if constexpr (Set::template kSupports<TypeOf<decltype(tag)>>) out.push_back(d);
    });
  }
  return out;
}

// A factory for K<T, F>, T read from the type attr `attr` and limited to F's dtype set.
template <template <typename, typename> class K, typename F>
KernelFactory CwiseFactory(const char* attr) {
  return [attr](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DType t = DType::kInvalid;
    c.GetAttr(attr, &t);
    if (!c.status().ok()) return c.status();
    std::unique_ptr<OpKernel> k;
    VisitPodOrComplex(t, [&](auto tag) {
      using T = TypeOf<decltype(tag)>;
      if constexpr (F::template kSupports<T>) k = std::make_unique<K<T, F>>(c);
    });
    if (k == nullptr) {
      return absl::UnimplementedError(absl::StrCat("no ", c.op(), " kernel for ", DTypeName(t)));
    }
    if (!c.status().ok()) return c.status();
    return k;
  };
}

// Registers the CPU kernel K<T, F> for `op`, constrained to F's dtypes.
template <template <typename, typename> class K, typename F>
void RegisterCwise(KernelRegistry& r, const char* op, const char* attr = "T") {
  r.Register(KernelRegistry::Registration{op, kDeviceCpu, CwiseFactory<K, F>(attr), attr,
                                          SupportedDTypes<F>()});
}

// ---------------------------------------------------------------------------------------
// Integer arithmetic that wraps (as TensorFlow's does in practice) instead of being
// undefined on overflow; floating point is unchanged.

template <typename T>
using Unsigned = std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, int>>;

template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b));
  } else {
    return a + b;
  }
}
template <typename T>
T WrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b));
  } else {
    return a - b;
  }
}
template <typename T>
T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<Unsigned<T>>(a) * static_cast<Unsigned<T>>(b));
  } else {
    return a * b;
  }
}

// ---------------------------------------------------------------------------------------
// The broadcasting binary kernel. F provides `Out operator()(T x, T y) const`, a
// `static constexpr int64_t kCost` (ns per element), its dtype set, and optionally
// `static absl::Status Check(const T* y, int64_t n)` to reject bad right operands
// (integer division by zero) before any work.

template <typename T, typename F>
class BinaryOp : public OpKernel {
 public:
  using Out = std::invoke_result_t<const F&, T, T>;
  explicit BinaryOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    const int64_t ny = y.NumElements();
    // Input tensors may be moved into the output below; keep what is needed first.
    if (x.shape() == y.shape()) {
      const int64_t n = ny;
      TW_RETURN_IF_ERROR(CheckY(yp, ny, n));
      const int in = x.RefCountIsOne() ? 0 : 1;
      TW_ASSIGN_OR_RETURN(Out * z, Output(ctx, TensorShape(x.shape()), in));
      ParallelRange(ctx, n, F::kCost,
                    [&](int64_t b, int64_t e) { VV(xp + b, yp + b, z + b, e - b); });
      return absl::OkStatus();
    }
    if (x.NumElements() == 1 && x.rank() <= y.rank()) {
      const int64_t n = ny;
      TW_RETURN_IF_ERROR(CheckY(yp, ny, n));
      const T xs = *xp;
      TW_ASSIGN_OR_RETURN(Out * z, Output(ctx, TensorShape(y.shape()), 1));
      ParallelRange(ctx, n, F::kCost, [&](int64_t b, int64_t e) { SV(xs, yp + b, z + b, e - b); });
      return absl::OkStatus();
    }
    if (ny == 1 && y.rank() <= x.rank()) {
      const int64_t n = x.NumElements();
      TW_RETURN_IF_ERROR(CheckY(yp, ny, n));
      const T ys = *yp;
      TW_ASSIGN_OR_RETURN(Out * z, Output(ctx, TensorShape(x.shape()), 0));
      ParallelRange(ctx, n, F::kCost, [&](int64_t b, int64_t e) { VS(xp + b, ys, z + b, e - b); });
      return absl::OkStatus();
    }
    BroadcastPlan plan;
    TW_RETURN_IF_ERROR(MakeBroadcastPlan({&x.shape(), &y.shape()}, &plan));
    const int64_t n = plan.out_shape.num_elements();
    TW_RETURN_IF_ERROR(CheckY(yp, ny, n));
    const int forward = plan.out_shape == x.shape() ? 0 : (plan.out_shape == y.shape() ? 1 : -1);
    TW_ASSIGN_OR_RETURN(Out * z, Output(ctx, plan.out_shape, forward));
    const bool x_runs = plan.inner_stride(0) != 0, y_runs = plan.inner_stride(1) != 0;
    ParallelRange(ctx, n, F::kCost, [&](int64_t b, int64_t e) {
      ForEachRun(plan, b, e, [&](int64_t o, int64_t len, const int64_t* off) {
        if (x_runs && y_runs) {
          VV(xp + off[0], yp + off[1], z + o, len);
        } else if (x_runs) {
          VS(xp + off[0], yp[off[1]], z + o, len);
        } else {
          SV(xp[off[0]], yp + off[1], z + o, len);
        }
      });
    });
    return absl::OkStatus();
  }

 private:
  // Runs F's check on y when the output is not empty (else y's values are never used).
  static absl::Status CheckY(const T* y, int64_t ny, int64_t n_out) {
    if constexpr (requires { F::Check(y, ny); }) {
      if (n_out > 0) return F::Check(y, ny);
    }
    return absl::OkStatus();
  }

  // Allocates output 0, reusing input `in` (x or y, when it has the output's shape and
  // dtype) unless `in` is -1.
  static absl::StatusOr<Out*> Output(OpKernelContext& ctx, const TensorShape& shape, int in) {
    Tensor* out;
    if (in >= 0) {
      TW_ASSIGN_OR_RETURN(out,
                          ctx.forward_input_or_allocate_output(in, 0, shape, DTypeOf<Out>::value));
    } else {
      TW_ASSIGN_OR_RETURN(out, ctx.allocate_output(0, shape, DTypeOf<Out>::value));
    }
    return out->template data<Out>();
  }

  // Flat loops the compiler vectorizes; z may alias the input read at the same index.
  static void VV(const T* x, const T* y, Out* z, int64_t n) {
    const F f;
    for (int64_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
  }
  static void SV(T x, const T* y, Out* z, int64_t n) {
    const F f;
    for (int64_t i = 0; i < n; ++i) z[i] = f(x, y[i]);
  }
  static void VS(const T* x, T y, Out* z, int64_t n) {
    const F f;
    for (int64_t i = 0; i < n; ++i) z[i] = f(x[i], y);
  }
};

template <typename F>
void RegisterBinary(KernelRegistry& r, const char* op) {
  RegisterCwise<BinaryOp, F>(r, op);
}

}  // namespace tw::cwise

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_CWISE_H_
