// Unary elementwise ops, and the same-shape gradient helpers ReluGrad, SigmoidGrad and
// TanhGrad. Transcendental functions use Eigen arrays, which vectorize them.
#include <cmath>
#include <type_traits>

// GCC 12 reports false -Wmaybe-uninitialized inside its AVX-512 intrinsics (GCC PR 105593)
// when Eigen's packet math is inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <Eigen/Core>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cwise.h"
#include "tensor/tensor_eigen.h"
#include "kernels/cpu/math_kernels.h"

namespace tw {
namespace {

using cwise::FloatTypes;
using cwise::NumericTypes;


// F provides `static void Run(const T* x, T* y, int64_t n)` (y may equal x), a cost per
// element in ns and its dtype set.
template <typename T, typename F>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction& c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const T* xp = x.data<T>();
    const int64_t n = x.NumElements();
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.forward_input_or_allocate_output(
                                          0, 0, TensorShape(x.shape()), DTypeOf<T>::value));
    T* yp = out->data<T>();
    cwise::ParallelRange(ctx, n, F::kCost,
                         [&](int64_t b, int64_t e) { F::Run(xp + b, yp + b, e - b); });
    return absl::OkStatus();
  }
};

// Unary functors written per element; simple enough for the compiler to vectorize.
template <typename Derived, typename Types, int64_t kCostNs>
struct PerElement : Types {
  static constexpr int64_t kCost = kCostNs;
  template <typename T>
  static void Run(const T* x, T* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = Derived::Apply(x[i]);
  }
};

struct NegF : PerElement<NegF, cwise::NumericOrComplexTypes, 1> {
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_integral_v<T>) {
      return cwise::WrapSub(T{0}, x);  // Wraps for the most negative value.
    } else {
      return -x;
    }
  }
};

struct AbsF : PerElement<AbsF, NumericTypes, 1> {
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_integral_v<T>) {
      return x < 0 ? cwise::WrapSub(T{0}, x) : x;
    } else {
      return std::abs(x);
    }
  }
};

struct SquareF : PerElement<SquareF, cwise::NumericOrComplexTypes, 1> {
  template <typename T>
  static T Apply(T x) {
    return cwise::WrapMul(x, x);
  }
};

// max(x, 0), keeping NaN.
struct ReluF : PerElement<ReluF, NumericTypes, 1> {
  template <typename T>
  static T Apply(T x) {
    // As TensorFlow (checked by test_tf_oracle_ops.py): -0 gives +0, NaN stays NaN.
    return x > T{0} ? x : (x != x ? x : T{0});
  }
};

// -1, 0 or 1 (+0 for either zero, as TensorFlow); NaN stays NaN.
struct SignF : PerElement<SignF, NumericTypes, 1> {
  template <typename T>
  static T Apply(T x) {
    return x > T{0} ? T{1} : (x < T{0} ? T{-1} : (x != x ? x : T{0}));
  }
};

struct ReciprocalF : PerElement<ReciprocalF, cwise::FloatOrComplexTypes, 2> {
  template <typename T>
  static T Apply(T x) {
    return T{1} / x;
  }
};

struct LogicalNotF : PerElement<LogicalNotF, cwise::BoolTypes, 1> {
  static bool Apply(bool x) { return !x; }
};

// Functors over whole Eigen arrays.
template <typename Derived, int64_t kCostNs, typename Types = FloatTypes>
struct EigenArray : Types {
  static constexpr int64_t kCost = kCostNs;
  template <typename T>
  static void Run(const T* x, T* y, int64_t n) {
    ArrayMap<T>(y, n) = Derived::Eval(ConstArrayMap<T>(x, n));
  }
};

// std::sqrt, IEEE's: Eigen's AVX-512 packet sqrt of doubles gave NaN for +inf and +0 for
// -0 (found by test_tf_oracle_ops.py). Vectorized all the same: this file is built with
// -fno-math-errno.
struct SqrtF : PerElement<SqrtF, cwise::FloatOrComplexTypes, 2> {
  template <typename T>
  static T Apply(T x) {
    return std::sqrt(x);
  }
};
struct RsqrtF : EigenArray<RsqrtF, 2> {
  template <typename A>
  static auto Eval(const A& x) {
    return x.rsqrt();
  }
};
struct ExpF : EigenArray<ExpF, 5, cwise::FloatOrComplexTypes> {
  template <typename A>
  static auto Eval(const A& x) {
    return x.exp();
  }
};
struct LogF : EigenArray<LogF, 5, cwise::FloatOrComplexTypes> {
  template <typename A>
  static auto Eval(const A& x) {
    return x.log();
  }
};
struct TanhF : EigenArray<TanhF, 10> {
  template <typename A>
  static auto Eval(const A& x) {
    return x.tanh();
  }
};
// 1 / (1 + exp(-x)) with Eigen's vectorized exp: no overflow to NaN for large |x| (exp's
// inf gives 0). Not Eigen 3.4's float logistic, a clamped rational fit up to 8 ulps off where
// TensorFlow's is within an ulp (found by test_tf_oracle_ops.py); for doubles Eigen's logistic
// is the formula itself.
struct SigmoidF : FloatTypes {
  static constexpr int64_t kCost = 10;
  template <typename T>
  static void Run(const T* x, T* y, int64_t n) {
    if constexpr (std::is_same_v<T, float>) {
      ArrayMap<T>(y, n) = (T(1) + (-ConstArrayMap<T>(x, n)).exp()).inverse();
    } else {
      ArrayMap<T>(y, n) = ConstArrayMap<T>(x, n).logistic();
    }
  }
};

// Two inputs of one shape (no broadcasting, as in TensorFlow); F names them for errors.
template <typename T, typename F>
class SameShapeBinaryOp : public OpKernel {
 public:
  explicit SameShapeBinaryOp(OpKernelConstruction& c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.shape() != b.shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat(F::kNames[0], " and ", F::kNames[1], " must have the same shape, got ",
                       a.shape().DebugString(), " and ", b.shape().DebugString()));
    }
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    const int64_t n = a.NumElements();
    const int in = a.RefCountIsOne() ? 0 : 1;
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.forward_input_or_allocate_output(
                                          in, 0, TensorShape(a.shape()), DTypeOf<T>::value));
    T* zp = out->data<T>();
    cwise::ParallelRange(ctx, n, F::kCost, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) zp[i] = F::Apply(ap[i], bp[i]);
    });
    return absl::OkStatus();
  }
};

struct ReluGradF : NumericTypes {
  static constexpr int64_t kCost = 1;
  static constexpr const char* kNames[2] = {"gradients", "features"};
  template <typename T>
  static T Apply(T gradients, T features) {
    // A product, as TensorFlow computes it: NaN and infinite gradients stay NaN at features <= 0.
    return gradients * static_cast<T>(features > T{0});
  }
};

// Gradients in terms of the forward op's output y.
struct SigmoidGradF : FloatTypes {
  static constexpr int64_t kCost = 1;
  static constexpr const char* kNames[2] = {"y", "dy"};
  template <typename T>
  static T Apply(T y, T dy) {
    return dy * y * (T{1} - y);
  }
};

struct TanhGradF : FloatTypes {
  static constexpr int64_t kCost = 1;
  static constexpr const char* kNames[2] = {"y", "dy"};
  template <typename T>
  static T Apply(T y, T dy) {
    return dy * (T{1} - y * y);
  }
};

template <typename F>
void RegisterUnary(KernelRegistry& r, const char* op) {
  cwise::RegisterCwise<UnaryOp, F>(r, op);
}

}  // namespace

void RegisterMathUnaryKernels(KernelRegistry& r) {
  RegisterUnary<NegF>(r, "Neg");
  RegisterUnary<AbsF>(r, "Abs");
  RegisterUnary<SquareF>(r, "Square");
  RegisterUnary<ReluF>(r, "Relu");
  RegisterUnary<SignF>(r, "Sign");
  RegisterUnary<ReciprocalF>(r, "Reciprocal");
  RegisterUnary<ReciprocalF>(r, "Inv");  // TensorFlow's older name of Reciprocal.
  RegisterUnary<SqrtF>(r, "Sqrt");
  RegisterUnary<RsqrtF>(r, "Rsqrt");
  RegisterUnary<ExpF>(r, "Exp");
  RegisterUnary<LogF>(r, "Log");
  RegisterUnary<TanhF>(r, "Tanh");
  RegisterUnary<SigmoidF>(r, "Sigmoid");
  r.Register("LogicalNot", kDeviceCpu, Factory<UnaryOp<bool, LogicalNotF>>());
  cwise::RegisterCwise<SameShapeBinaryOp, ReluGradF>(r, "ReluGrad");
  cwise::RegisterCwise<SameShapeBinaryOp, SigmoidGradF>(r, "SigmoidGrad");
  cwise::RegisterCwise<SameShapeBinaryOp, TanhGradF>(r, "TanhGrad");
}

}  // namespace tw
