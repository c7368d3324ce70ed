// Broadcasting binary ops beyond math_kernels.cc: Atan2, truncating division and
// remainders (TruncateDiv, TruncateMod, Mod), DivNoNan, Xdivy/Xlogy/Xlog1py, the bitwise
// ops and shifts, and the special functions Igamma, Igammac, IgammaGradA, Zeta and
// Polygamma (Eigen's unsupported SpecialFunctions module, which TensorFlow's kernels use).
// Invert (bitwise not) is unary and lives here with its family.
#include <cmath>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"

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

namespace tw {
namespace {

using cwise::FloatTypes;
using cwise::NumericTypes;

struct IntegerTypes {
  template <typename T>
  static constexpr bool kSupports = std::is_integral_v<T> && !std::is_same_v<T, bool>;
};

// Integer divisors are checked before any division (a zero one traps on x86).
struct NonzeroIntegerDivisor {
  template <typename T>
  static absl::Status Check(const T* y, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i) {
        if (y[i] == 0) return absl::InvalidArgumentError("Integer division by zero");
      }
    }
    return absl::OkStatus();
  }
};

// atan2(y, x): the op's first input is y.
struct Atan2F : FloatTypes {
  static constexpr int64_t kCost = 20;
  template <typename T>
  T operator()(T y, T x) const {
    return std::atan2(y, x);
  }
};

// x / y rounded toward zero; x / -1 wraps for the most negative x.
struct TruncateDivF : NumericTypes, NonzeroIntegerDivisor {
  static constexpr int64_t kCost = 3;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      return y == -1 ? cwise::WrapSub(T{0}, x) : x / y;
    } else {
      return std::trunc(x / y);
    }
  }
};

// The remainder of truncated division (C's % and fmod): it takes the sign of x.
struct TruncateModF : NumericTypes, NonzeroIntegerDivisor {
  static constexpr int64_t kCost = 4;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      return y == -1 ? T{0} : x % y;
    } else {
      return std::fmod(x, y);
    }
  }
};

// x / y, or 0 where y is 0 (even for x = 0 or NaN).
struct DivNoNanF : FloatTypes {
  static constexpr int64_t kCost = 2;
  template <typename T>
  T operator()(T x, T y) const {
    return y == T{0} ? T{0} : x / y;
  }
};

// x / y, x * log(y), x * log1p(y): 0 where x is 0, whatever y is.
struct XdivyF : FloatTypes {
  static constexpr int64_t kCost = 2;
  template <typename T>
  T operator()(T x, T y) const {
    return x == T{0} ? T{0} : x / y;
  }
};
struct XlogyF : FloatTypes {
  static constexpr int64_t kCost = 10;
  template <typename T>
  T operator()(T x, T y) const {
    return x == T{0} ? T{0} : x * std::log(y);
  }
};
struct Xlog1pyF : FloatTypes {
  static constexpr int64_t kCost = 10;
  template <typename T>
  T operator()(T x, T y) const {
    return x == T{0} ? T{0} : x * std::log1p(y);
  }
};

struct BitwiseAndF : IntegerTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return x & y;
  }
};
struct BitwiseOrF : IntegerTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return x | y;
  }
};
struct BitwiseXorF : IntegerTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return x ^ y;
  }
};

// Shift counts are clamped to [0, bits - 1], as TensorFlow's kernels do (C leaves the
// other counts undefined).
template <typename T>
T ClampShift(T y) {
  constexpr T kMax = static_cast<T>(std::numeric_limits<cwise::Unsigned<T>>::digits - 1);
  return y < T{0} ? T{0} : (y > kMax ? kMax : y);
}
struct LeftShiftF : IntegerTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return static_cast<T>(static_cast<cwise::Unsigned<T>>(x) << ClampShift(y));
  }
};
// Arithmetic for signed types: the sign bit is copied in.
struct RightShiftF : IntegerTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return static_cast<T>(x >> ClampShift(y));
  }
};

// The regularized incomplete gamma functions P(a, x) and Q(a, x), d P(a, x) / da,
// Hurwitz's zeta(x, q) and polygamma(n, x).
struct IgammaF : FloatTypes {
  static constexpr int64_t kCost = 200;
  template <typename T>
  T operator()(T a, T x) const {
    return Eigen::numext::igamma(a, x);
  }
};
struct IgammacF : FloatTypes {
  static constexpr int64_t kCost = 200;
  template <typename T>
  T operator()(T a, T x) const {
    return Eigen::numext::igammac(a, x);
  }
};
struct IgammaGradAF : FloatTypes {
  static constexpr int64_t kCost = 400;
  template <typename T>
  T operator()(T a, T x) const {
    return Eigen::numext::igamma_der_a(a, x);
  }
};
struct ZetaF : FloatTypes {
  static constexpr int64_t kCost = 200;
  template <typename T>
  T operator()(T x, T q) const {
    return Eigen::numext::zeta(x, q);
  }
};
struct PolygammaF : FloatTypes {
  static constexpr int64_t kCost = 200;
  template <typename T>
  T operator()(T n, T x) const {
    // Eigen 3.4 gives NaN at x = +inf for n >= 1, where TensorFlow's newer Eigen gives the
    // limit 0 (found by test_tf_oracle_ops.py).
    if (x == std::numeric_limits<T>::infinity() && n >= T{1} && n == std::floor(n)) return T{0};
    return Eigen::numext::polygamma(n, x);
  }
};

// x * y, or 0 where y is 0 (even for x NaN or inf).
struct MulNoNanF : FloatTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return y == T{0} ? T{0} : x * y;
  }
};

// The regularized incomplete beta function I_x(a, b). As TensorFlow: a, b and x have one
// shape, except that scalars stand for any shape (no other broadcasting).
template <typename T, typename F>
class BetaincOp : public OpKernel {
 public:
  explicit BetaincOp(OpKernelConstruction& c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const Tensor& x = ctx.input(2);
    const char* names[3] = {"a", "b", "x"};
    const Tensor* in[3] = {&a, &b, &x};
    for (int i = 0; i < 3; ++i) {
      for (int j = i + 1; j < 3; ++j) {
        if (in[i]->rank() > 0 && in[j]->rank() > 0 && in[i]->shape() != in[j]->shape()) {
          return absl::InvalidArgumentError(absl::StrCat("Shapes of ", names[i], " and ", names[j],
                                                         " are inconsistent: ", in[i]->shape().DebugString(),
                                                         " vs. ", in[j]->shape().DebugString()));
        }
      }
    }
    const Tensor* shaped = x.rank() > 0 ? &x : (b.rank() > 0 ? &b : &a);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(shaped->shape()), DTypeOf<T>::value));
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    const T* xp = x.data<T>();
    const int64_t sa = a.rank() > 0, sb = b.rank() > 0, sx = x.rank() > 0;  // 0: a scalar, repeated
    T* zp = out->data<T>();
    cwise::ParallelRange(ctx, out->NumElements(), 500, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) zp[i] = Eigen::numext::betainc(ap[i * sa], bp[i * sb], xp[i * sx]);
    });
    return absl::OkStatus();
  }
};
struct BetaincF : FloatTypes {};

// Bitwise not, the unary member of the family.
template <typename T, typename F>
class InvertOp : public OpKernel {
 public:
  explicit InvertOp(OpKernelConstruction& c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const T* xp = x.data<T>();
    const int64_t n = x.NumElements();
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.forward_input_or_allocate_output(0, 0, TensorShape(x.shape()),
                                                                           DTypeOf<T>::value));
    T* yp = out->data<T>();
    cwise::ParallelRange(ctx, n, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) yp[i] = static_cast<T>(~xp[i]);
    });
    return absl::OkStatus();
  }
};
struct InvertF : IntegerTypes {};

}  // namespace

void RegisterMathBinaryFnKernels(KernelRegistry& r) {
  cwise::RegisterBinary<Atan2F>(r, "Atan2");
  cwise::RegisterBinary<TruncateDivF>(r, "TruncateDiv");
  cwise::RegisterBinary<TruncateModF>(r, "TruncateMod");
  cwise::RegisterBinary<TruncateModF>(r, "Mod");
  cwise::RegisterBinary<DivNoNanF>(r, "DivNoNan");
  cwise::RegisterBinary<XdivyF>(r, "Xdivy");
  cwise::RegisterBinary<XlogyF>(r, "Xlogy");
  cwise::RegisterBinary<Xlog1pyF>(r, "Xlog1py");
  cwise::RegisterBinary<BitwiseAndF>(r, "BitwiseAnd");
  cwise::RegisterBinary<BitwiseOrF>(r, "BitwiseOr");
  cwise::RegisterBinary<BitwiseXorF>(r, "BitwiseXor");
  cwise::RegisterBinary<LeftShiftF>(r, "LeftShift");
  cwise::RegisterBinary<RightShiftF>(r, "RightShift");
  cwise::RegisterBinary<IgammaF>(r, "Igamma");
  cwise::RegisterBinary<IgammacF>(r, "Igammac");
  cwise::RegisterBinary<IgammaGradAF>(r, "IgammaGradA");
  cwise::RegisterBinary<ZetaF>(r, "Zeta");
  cwise::RegisterBinary<PolygammaF>(r, "Polygamma");
  cwise::RegisterCwise<InvertOp, InvertF>(r, "Invert");
  cwise::RegisterBinary<MulNoNanF>(r, "MulNoNan");
  cwise::RegisterCwise<BetaincOp, BetaincF>(r, "Betainc");
}

}  // namespace tw
