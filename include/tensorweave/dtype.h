// Element types of tensors. Values match TensorFlow's DataType enum (see proto/tensor.proto).
#ifndef TENSORWEAVE_DTYPE_H_
#define TENSORWEAVE_DTYPE_H_

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
  kString = 7,  // Each element a std::string of arbitrary bytes.
  kInt64 = 9,
  kBool = 10,
  kResource = 20,  // A handle naming a variable in a device's ResourceMgr.
};

struct ResourceHandle;

// Size in bytes of one element; 0 for kInvalid.
size_t DTypeSize(DType dtype);
// "float32", "float64", "int32", "int64", "bool", "string", "resource".
std::string DTypeName(DType dtype);
// Accepts the names above and TensorFlow's ("float", "double", "DT_FLOAT", ...).
absl::StatusOr<DType> DTypeFromName(absl::string_view name);
// True for the types that numeric kernels handle (float32/64, int32/64).
bool IsNumeric(DType dtype);
bool IsFloating(DType dtype);
bool IsInteger(DType dtype);
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
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };
template <> struct DTypeOf<ResourceHandle> { static constexpr DType value = DType::kResource; };

// A tag carrying a type through a generic lambda: `[&](auto tag) { using T = TypeOf<decltype(tag)>; }`.
template <typename T>
struct TypeTag {
  using type = T;
};
template <typename Tag>
using TypeOf = typename Tag::type;

// Calls fn(TypeTag<T>{}) for a numeric dtype; returns false when dtype is not numeric.
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

}  // namespace tw

#endif  // TENSORWEAVE_DTYPE_H_
