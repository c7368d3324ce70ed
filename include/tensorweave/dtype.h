// Element types of tensors. Values match TensorFlow's DataType enum (see proto/tensor.proto).
#ifndef TENSORWEAVE_DTYPE_H_
#define TENSORWEAVE_DTYPE_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tw {

enum class DType : int {
  kInvalid = 0,
  kFloat = 1,
  kDouble = 2,
  kInt32 = 3,
  kUint8 = 4,
  kInt16 = 5,
  kInt8 = 6,
  kString = 7,  // Each element a std::string of arbitrary bytes.
  kComplex64 = 8,  // std::complex<float>: real then imaginary part, as TensorFlow's.
  kInt64 = 9,
  kBool = 10,
  kUint16 = 17,
  kComplex128 = 18,  // std::complex<double>.
  kHalf = 19,  // IEEE 754 binary16, stored as tw::half.
  kResource = 20,  // A handle naming a variable in a device's ResourceMgr.
  kVariant = 21,   // A scalar holding an object of the runtime (a tf.data dataset).
};

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

struct ResourceHandle;
struct VariantValue;

// One IEEE 754 half-precision value (DType::kHalf) as a tensor stores it: its 16 bits.
// The conversions round to nearest even, as TensorFlow's Eigen::half does; kernels compute
// in float (src/tensor/half.h has inline conversions for them).
struct half {
  uint16_t bits = 0;

  half() = default;
  explicit half(float value);
  explicit operator float() const;
  static half FromBits(uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
};

// Size in bytes of one element; 0 for kInvalid.
size_t DTypeSize(DType dtype);
// "float32", "float64", "int32", "int64", "bool", "string", "resource", "int8", "uint8",
// "int16", "uint16", "float16", "complex64", "complex128".
std::string DTypeName(DType dtype);
// Accepts the names above and TensorFlow's ("float", "double", "half", "DT_FLOAT", ...).
absl::StatusOr<DType> DTypeFromName(absl::string_view name);
// True for the integer and floating types, the small ones (int8, half, ...) included.
// Kernels for the small types are registered apart: see VisitSmall.
bool IsNumeric(DType dtype);
// float32, float64 and half.
bool IsFloating(DType dtype);
// int8, uint8, int16, uint16, int32 and int64.
bool IsInteger(DType dtype);
// complex64 and complex128 (not counted by IsNumeric, which the real-valued ops use).
bool IsComplex(DType dtype);
// True for every type a tensor may hold (not kInvalid, not an unsupported enum value).
bool IsValidDType(int value);

// Maps a C++ type to its DType: DTypeOf<float>::value == DType::kFloat.
template <typename T>
struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::kFloat; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kDouble; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct DTypeOf<std::string> { static constexpr DType value = DType::kString; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::kUint8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::kInt16; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::kInt8; };
template <> struct DTypeOf<uint16_t> { static constexpr DType value = DType::kUint16; };
template <> struct DTypeOf<half> { static constexpr DType value = DType::kHalf; };
template <> struct DTypeOf<complex64> { static constexpr DType value = DType::kComplex64; };
template <> struct DTypeOf<complex128> { static constexpr DType value = DType::kComplex128; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };
template <> struct DTypeOf<ResourceHandle> { static constexpr DType value = DType::kResource; };
template <> struct DTypeOf<VariantValue> { static constexpr DType value = DType::kVariant; };

// True for complex64 and complex128.
template <typename T>
inline constexpr bool kIsComplex = std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

// A tag carrying a type through a generic lambda: `[&](auto tag) { using T = TypeOf<decltype(tag)>; }`.
template <typename T>
struct TypeTag {
  using type = T;
};
template <typename Tag>
using TypeOf = typename Tag::type;

// Calls fn(TypeTag<T>{}) for float32, float64, int32 or int64; returns false for any
// other dtype. The small types have their own visitor (VisitSmall) so that the many kernels
// TensorFlow does not register for them are not instantiated for them.
template <typename Fn>
bool VisitNumeric(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat: fn(TypeTag<float>{}); return true;
    case DType::kDouble: fn(TypeTag<double>{}); return true;
    case DType::kInt32: fn(TypeTag<int32_t>{}); return true;
    case DType::kInt64: fn(TypeTag<int64_t>{}); return true;
    default: return false;
  }
}
// As VisitNumeric, plus bool.
template <typename Fn>
bool VisitPod(DType dtype, Fn&& fn) {
  if (dtype == DType::kBool) {
    fn(TypeTag<bool>{});
    return true;
  }
  return VisitNumeric(dtype, fn);
}
// Float32 and float64 only.
template <typename Fn>
bool VisitFloating(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat: fn(TypeTag<float>{}); return true;
    case DType::kDouble: fn(TypeTag<double>{}); return true;
    default: return false;
  }
}

// The small types: int8, uint8, int16, uint16 and half.
template <typename Fn>
bool VisitSmall(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kUint8: fn(TypeTag<uint8_t>{}); return true;
    case DType::kInt16: fn(TypeTag<int16_t>{}); return true;
    case DType::kInt8: fn(TypeTag<int8_t>{}); return true;
    case DType::kUint16: fn(TypeTag<uint16_t>{}); return true;
    case DType::kHalf: fn(TypeTag<half>{}); return true;
    default: return false;
  }
}
// complex64 and complex128.
template <typename Fn>
bool VisitComplex(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kComplex64: fn(TypeTag<complex64>{}); return true;
    case DType::kComplex128: fn(TypeTag<complex128>{}); return true;
    default: return false;
  }
}
// VisitPod, VisitSmall and VisitComplex: every dtype stored as plain bytes (casts, protos, feeds).
template <typename Fn>
bool VisitAllPod(DType dtype, Fn&& fn) {
  return VisitPod(dtype, fn) || VisitSmall(dtype, fn) || VisitComplex(dtype, fn);
}

}  // namespace tw

#endif  // TENSORWEAVE_DTYPE_H_
