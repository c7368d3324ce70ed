// Cast between every pair of plain dtypes: float32/64, half, the integers, bool and complex. It has
// a file of its own because it instantiates one loop per pair (144 of them).
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cwise.h"
#include "kernels/cpu/math_kernels.h"
#include "tensor/half.h"

namespace tw {
namespace {

// One element of Cast. Float to int32/int64 truncates toward zero, saturating at the integer
// range and mapping NaN to 0 (a plain C++ conversion would be undefined there; TensorFlow
// gives INT_MIN); to the small integers it wraps as TensorFlow's does. Half goes
// through float both ways, as Eigen::half does (so double -> half rounds twice, as
// TensorFlow's).
template <typename S, typename D>
D CastValue(S x) {
  if constexpr (std::is_same_v<S, half>) {
    return CastValue<float, D>(HalfToFloat(x));
  } else if constexpr (kIsComplex<S>) {
    // From complex: to bool whether it is non-zero, to another complex each part, to a
    // real type the real part (TensorFlow drops the imaginary one).
    if constexpr (std::is_same_v<D, bool>) {
      return x != S{0};
    } else if constexpr (kIsComplex<D>) {
      return D(x);
    } else {
      return CastValue<typename S::value_type, D>(x.real());
    }
  } else if constexpr (kIsComplex<D>) {
    return D(CastValue<S, typename D::value_type>(x), 0);
  } else if constexpr (std::is_same_v<D, half>) {
    return FloatToHalf(static_cast<float>(x));
  } else if constexpr (std::is_same_v<D, bool>) {
    return x != S{0};
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D> && sizeof(D) < 4) {
    // To int8/uint8/int16/uint16 as TensorFlow's CPU kernel: through int32 (x86's cvtt, so
    // NaN and values outside int32's range give INT32_MIN), keeping the low bits: 300.5 ->
    // int8 44, -1 -> uint8 255, inf -> 0.
    const double v = static_cast<double>(x);
    const int32_t i = (v > -2147483649.0 && v < 2147483648.0) ? static_cast<int32_t>(v)
                                                               : std::numeric_limits<int32_t>::min();
    return static_cast<D>(i);
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    using Limits = std::numeric_limits<D>;
    if (std::isnan(x)) return D{0};
    if (x <= static_cast<S>(Limits::min())) return Limits::min();
    if (x >= static_cast<S>(Limits::max())) return Limits::max();
    return static_cast<D>(x);
  } else {
    return static_cast<D>(x);
  }
}

template <typename S, typename D>
void CastLoop(const void* in, void* out, int64_t begin, int64_t end) {
  const S* s = static_cast<const S*>(in);
  D* d = static_cast<D*>(out);
  for (int64_t i = begin; i < end; ++i) d[i] = CastValue<S, D>(s[i]);
}

// With Truncate, float32/64 -> half drops the mantissa bits half lacks before converting,
// so the conversion truncates instead of rounding (TensorFlow's LSBZeroSetter).
template <typename S>
void TruncateToHalfLoop(const void* in, void* out, int64_t begin, int64_t end) {
  using Bits = std::conditional_t<sizeof(S) == 4, uint32_t, uint64_t>;
  constexpr int kDropped = std::numeric_limits<S>::digits - std::numeric_limits<float>::digits + 13;
  const S* s = static_cast<const S*>(in);
  half* d = static_cast<half*>(out);
  for (int64_t i = begin; i < end; ++i) {
    S x = s[i];
    if (!std::isnan(x)) {
      Bits b;
      std::memcpy(&b, &x, sizeof(b));
      b &= ~((Bits{1} << kDropped) - 1);
      std::memcpy(&x, &b, sizeof(b));
    }
    d[i] = CastValue<S, half>(x);
  }
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("SrcT", &src_);
    c.GetAttr("DstT", &dst_);
    bool truncate = false;
    if (c.attrs().count("Truncate")) c.GetAttr("Truncate", &truncate);
    VisitAllPod(src_, [&](auto s) {
      VisitAllPod(dst_, [&](auto d) { fn_ = &CastLoop<TypeOf<decltype(s)>, TypeOf<decltype(d)>>; });
    });
    if (truncate && dst_ == DType::kHalf) {
      if (src_ == DType::kFloat) fn_ = &TruncateToHalfLoop<float>;
      if (src_ == DType::kDouble) fn_ = &TruncateToHalfLoop<double>;
    }
    if (c.status().ok() && fn_ == nullptr) {
      c.Fail(absl::UnimplementedError(absl::StrCat("Cast from ", DTypeName(src_), " to ",
                                                   DTypeName(dst_), " is not supported")));
    }
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (src_ == dst_) {
      ctx.set_output(0, x);
      return absl::OkStatus();
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), dst_));
    const void* in = x.raw_data();
    void* o = out->raw_data();
    cwise::ParallelRange(ctx, x.NumElements(), 1, [&](int64_t b, int64_t e) { fn_(in, o, b, e); });
    return absl::OkStatus();
  }

 private:
  DType src_ = DType::kInvalid, dst_ = DType::kInvalid;
  void (*fn_)(const void*, void*, int64_t, int64_t) = nullptr;
};

}  // namespace

void RegisterCastKernels(KernelRegistry& r) { r.Register("Cast", kDeviceCpu, Factory<CastOp>()); }

}  // namespace tw
