// Binary arithmetic with NumPy broadcasting: Add, Sub, Mul, Div, RealDiv, FloorDiv,
// FloorMod, Maximum, Minimum, Pow, SquaredDifference. The other math kernels live in math_*_kernels.cc.
#include "kernels/cpu/math_kernels.h"

#include <cmath>
#include <type_traits>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/cwise.h"

namespace tw {
namespace {

using cwise::FloatTypes;
using cwise::NumericTypes;

struct AddF : cwise::NumericOrComplexTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return cwise::WrapAdd(x, y);
  }
};

struct SubF : cwise::NumericOrComplexTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return cwise::WrapSub(x, y);
  }
};

struct MulF : cwise::NumericOrComplexTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return cwise::WrapMul(x, y);
  }
};

// Integer divisors are checked before any division: a zero one is an error, as in
// TensorFlow (and a trap on x86).
struct IntegerDivisor {
  template <typename T>
  static absl::Status Check(const T* y, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
      bool zero = false;
      for (int64_t i = 0; i < n; ++i) zero |= y[i] == 0;
      if (zero) return absl::InvalidArgumentError("integer division by zero");
    }
    return absl::OkStatus();
  }
};

// x / y truncated toward zero, like C; x / -1 is negation, which for the most negative
// x wraps (a trap on x86 as a division).
template <typename T>
T TruncatedDiv(T x, T y) {
  return y == -1 ? cwise::WrapSub(T{0}, x) : x / y;
}

// Integer division truncates toward zero, like C.
struct DivF : cwise::NumericOrComplexTypes, IntegerDivisor {
  static constexpr int64_t kCost = 3;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      return TruncatedDiv(x, y);
    } else {
      return x / y;
    }
  }
};

// floor(x / y): integer quotients round toward negative infinity (Python's //).
struct FloorDivF : NumericTypes, IntegerDivisor {
  static constexpr int64_t kCost = 4;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      const T q = TruncatedDiv(x, y);
      return (x % (y == -1 ? T{1} : y) != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    } else {
      return std::floor(x / y);
    }
  }
};

// x - floor(x / y) * y: the remainder takes the divisor's sign (Python's %).
struct FloorModF : NumericTypes, IntegerDivisor {
  static constexpr int64_t kCost = 4;
  template <typename T>
  T operator()(T x, T y) const {
    T r;
    if constexpr (std::is_integral_v<T>) {
      r = y == -1 ? T{0} : x % y;
    } else {
      r = std::fmod(x, y);
    }
    return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
  }
};

struct RealDivF : cwise::FloatOrComplexTypes {
  static constexpr int64_t kCost = 2;
  template <typename T>
  T operator()(T x, T y) const {
    return x / y;
  }
};

// Maximum and Minimum propagate NaN, like NumPy and TensorFlow, and give x on ties (so
// max(0, -0) is 0 and max(-0, 0) is -0, as TensorFlow's).
struct MaximumF : NumericTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) {
      return (x < y || y != y) ? y : x;
    } else {
      return x < y ? y : x;
    }
  }
};

struct MinimumF : NumericTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) {
      return (y < x || y != y) ? y : x;
    } else {
      return y < x ? y : x;
    }
  }
};

struct PowF : NumericTypes {
  static constexpr int64_t kCost = 20;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(x, y);
    } else {
      // Square and multiply in unsigned arithmetic: wraps on overflow. Check() has
      // rejected negative exponents.
      cwise::Unsigned<T> base = static_cast<cwise::Unsigned<T>>(x), result = 1;
      for (T e = y; e > 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      return static_cast<T>(result);
    }
  }
  template <typename T>
  static absl::Status Check(const T* y, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
      bool negative = false;
      for (int64_t i = 0; i < n; ++i) negative |= y[i] < 0;
      if (negative) {
        return absl::InvalidArgumentError("integers to negative integer powers are not allowed");
      }
    }
    return absl::OkStatus();
  }
};

struct SquaredDifferenceF : FloatTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  T operator()(T x, T y) const {
    const T d = x - y;
    return d * d;
  }
};

}  // namespace

void RegisterMathKernels(KernelRegistry& r) {
  cwise::RegisterBinary<AddF>(r, "Add");
  cwise::RegisterBinary<AddF>(r, "AddV2");
  cwise::RegisterBinary<SubF>(r, "Sub");
  cwise::RegisterBinary<MulF>(r, "Mul");
  cwise::RegisterBinary<DivF>(r, "Div");
  cwise::RegisterBinary<FloorDivF>(r, "FloorDiv");
  cwise::RegisterBinary<FloorModF>(r, "FloorMod");
  cwise::RegisterBinary<RealDivF>(r, "RealDiv");
  cwise::RegisterBinary<MaximumF>(r, "Maximum");
  cwise::RegisterBinary<MinimumF>(r, "Minimum");
  cwise::RegisterBinary<PowF>(r, "Pow");
  cwise::RegisterBinary<SquaredDifferenceF>(r, "SquaredDifference");
  RegisterMathCompareKernels(r);
  RegisterMathUnaryKernels(r);
  RegisterMathMiscKernels(r);
  RegisterMathUnaryFnKernels(r);
  RegisterMathBinaryFnKernels(r);
  RegisterComplexKernels(r);
  RegisterFftKernels(r);
  RegisterCheckKernels(r);
}

}  // namespace tw
