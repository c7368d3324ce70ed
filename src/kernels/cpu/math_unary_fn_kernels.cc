// Unary float functions beyond math_unary_kernels.cc: trigonometric and hyperbolic,
// rounding (Floor, Ceil, Rint, Round half to even), Expm1/Log1p, the special functions
// Erf, Erfc, Lgamma, Digamma, and the predicates IsFinite/IsInf/IsNan. Each evaluates the
// Eigen array function TensorFlow's CPU kernel evaluates, so both use the same algorithm.
#include <cmath>
#include <type_traits>

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports false (maybe-)uninitialized values inside its AVX-512 intrinsics (GCC PR
// 105593) when Eigen's packet math is inlined, as in math_unary_kernels.cc.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "kernels/cpu/cwise.h"
#include "kernels/cpu/math_kernels.h"
#include "tensor/tensor_eigen.h"

namespace tw {
namespace {

using cwise::FloatTypes;
using cwise::NumericTypes;

// y = F::Eval(x) over flat arrays; F::Eval maps an Eigen array expression of T to one of
// Out (T, or bool for the predicates).
template <typename T, typename F>
class UnaryFnOp : public OpKernel {
 public:
  using Out = typename F::template Out<T>;
  explicit UnaryFnOp(OpKernelConstruction& c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const T* xp = x.data<T>();
    const int64_t n = x.NumElements();
    Tensor* out;
    if constexpr (std::is_same_v<Out, T>) {
      TW_ASSIGN_OR_RETURN(out, ctx.forward_input_or_allocate_output(0, 0, TensorShape(x.shape()),
                                                                    DTypeOf<T>::value));
    } else {
      TW_ASSIGN_OR_RETURN(out, ctx.allocate_output(0, TensorShape(x.shape()), DTypeOf<Out>::value));
    }
    Out* yp = out->data<Out>();
    cwise::ParallelRange(ctx, n, F::kCost, [&](int64_t b, int64_t e) {
      ArrayMap<Out>(yp + b, e - b) = F::Eval(ConstArrayMap<T>(xp + b, e - b));
    });
    return absl::OkStatus();
  }
};

// A float function: output of the input's type.
template <int64_t kCostNs>
struct FloatFn : FloatTypes {
  static constexpr int64_t kCost = kCostNs;
  template <typename T>
  using Out = T;
};

#define TW_FLOAT_FN(Name, cost, expr)   \
  struct Name : FloatFn<cost> {         \
    template <typename A>               \
    static auto Eval(const A& x) {      \
      return expr;                      \
    }                                   \
  };

TW_FLOAT_FN(SinF, 8, x.sin())
TW_FLOAT_FN(CosF, 8, x.cos())
TW_FLOAT_FN(TanF, 20, x.tan())
TW_FLOAT_FN(AsinF, 20, x.asin())
TW_FLOAT_FN(AcosF, 20, x.acos())
TW_FLOAT_FN(AtanF, 20, x.atan())
TW_FLOAT_FN(SinhF, 20, x.sinh())
TW_FLOAT_FN(CoshF, 20, x.cosh())
TW_FLOAT_FN(AsinhF, 20, x.asinh())
TW_FLOAT_FN(AcoshF, 20, x.acosh())
TW_FLOAT_FN(AtanhF, 20, x.atanh())
TW_FLOAT_FN(FloorF, 1, x.floor())
TW_FLOAT_FN(CeilF, 1, x.ceil())
TW_FLOAT_FN(RintF, 1, x.rint())
TW_FLOAT_FN(Expm1F, 10, x.expm1())
TW_FLOAT_FN(Log1pF, 10, x.log1p())
TW_FLOAT_FN(ErfF, 10, x.erf())
TW_FLOAT_FN(ErfcF, 20, x.erfc())
TW_FLOAT_FN(LgammaF, 40, x.lgamma())
TW_FLOAT_FN(DigammaF, 40, x.digamma())
#undef TW_FLOAT_FN

// Round: halves to even, as TensorFlow (rint in the default rounding mode). Integers are
// returned as they are.
struct RoundF : NumericTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  using Out = T;
  template <typename A>
  static auto Eval(const A& x) {
    using T = typename A::Scalar;
    if constexpr (std::is_integral_v<T>) {
      return x;
    } else {
      return x.rint();
    }
  }
};

// Predicates on floats: bool output.
template <typename Derived>
struct FloatPredicate : FloatTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  using Out = bool;
  template <typename A>
  static auto Eval(const A& x) {
    using T = typename A::Scalar;
    return x.unaryExpr([](T v) { return Derived::Test(v); });
  }
};
struct IsFiniteF : FloatPredicate<IsFiniteF> {
  template <typename T>
  static bool Test(T v) {
    return std::isfinite(v);
  }
};
struct IsInfF : FloatPredicate<IsInfF> {
  template <typename T>
  static bool Test(T v) {
    return std::isinf(v);
  }
};
struct IsNanF : FloatPredicate<IsNanF> {
  template <typename T>
  static bool Test(T v) {
    return std::isnan(v);
  }
};

template <typename F>
void Register(KernelRegistry& r, const char* op) {
  cwise::RegisterCwise<UnaryFnOp, F>(r, op);
}

}  // namespace

void RegisterMathUnaryFnKernels(KernelRegistry& r) {
  Register<SinF>(r, "Sin");
  Register<CosF>(r, "Cos");
  Register<TanF>(r, "Tan");
  Register<AsinF>(r, "Asin");
  Register<AcosF>(r, "Acos");
  Register<AtanF>(r, "Atan");
  Register<SinhF>(r, "Sinh");
  Register<CoshF>(r, "Cosh");
  Register<AsinhF>(r, "Asinh");
  Register<AcoshF>(r, "Acosh");
  Register<AtanhF>(r, "Atanh");
  Register<FloorF>(r, "Floor");
  Register<CeilF>(r, "Ceil");
  Register<RintF>(r, "Rint");
  Register<RoundF>(r, "Round");
  Register<Expm1F>(r, "Expm1");
  Register<Log1pF>(r, "Log1p");
  Register<ErfF>(r, "Erf");
  Register<ErfcF>(r, "Erfc");
  Register<LgammaF>(r, "Lgamma");
  Register<DigammaF>(r, "Digamma");
  Register<IsFiniteF>(r, "IsFinite");
  Register<IsInfF>(r, "IsInf");
  Register<IsNanF>(r, "IsNan");
}

}  // namespace tw
