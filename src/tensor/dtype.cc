#include "tensorweave/dtype.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tensor/half.h"
#include "tensorweave/tensor.h"

namespace tw {

half::half(float value) : bits(FloatToHalf(value).bits) {}
half::operator float() const { return HalfToFloat(*this); }

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kFloat: return sizeof(float);
    case DType::kDouble: return sizeof(double);
    case DType::kInt32: return sizeof(int32_t);
    case DType::kUint8: return sizeof(uint8_t);
    case DType::kInt16: return sizeof(int16_t);
    case DType::kInt8: return sizeof(int8_t);
    case DType::kString: return sizeof(std::string);
    case DType::kInt64: return sizeof(int64_t);
    case DType::kBool: return sizeof(bool);
    case DType::kUint16: return sizeof(uint16_t);
    case DType::kHalf: return sizeof(half);
    case DType::kComplex64: return sizeof(complex64);
    case DType::kComplex128: return sizeof(complex128);
    case DType::kResource: return sizeof(ResourceHandle);
    case DType::kVariant: return sizeof(VariantValue);
    case DType::kInvalid: return 0;
  }
  return 0;
}

std::string DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat: return "float32";
    case DType::kDouble: return "float64";
    case DType::kInt32: return "int32";
    case DType::kUint8: return "uint8";
    case DType::kInt16: return "int16";
    case DType::kInt8: return "int8";
    case DType::kString: return "string";
    case DType::kInt64: return "int64";
    case DType::kBool: return "bool";
    case DType::kUint16: return "uint16";
    case DType::kHalf: return "float16";
    case DType::kComplex64: return "complex64";
    case DType::kComplex128: return "complex128";
    case DType::kResource: return "resource";
    case DType::kVariant: return "variant";
    case DType::kInvalid: return "invalid";
  }
  return absl::StrCat("dtype(", static_cast<int>(dtype), ")");
}

absl::StatusOr<DType> DTypeFromName(absl::string_view name) {
  std::string n = absl::AsciiStrToLower(name);
  if (absl::StartsWith(n, "dt_")) n = n.substr(3);
  if (n == "float32" || n == "float") return DType::kFloat;
  if (n == "float64" || n == "double") return DType::kDouble;
  if (n == "int32") return DType::kInt32;
  if (n == "uint8") return DType::kUint8;
  if (n == "int16") return DType::kInt16;
  if (n == "int8") return DType::kInt8;
  if (n == "string") return DType::kString;
  if (n == "int64") return DType::kInt64;
  if (n == "bool") return DType::kBool;
  if (n == "uint16") return DType::kUint16;
  if (n == "float16" || n == "half") return DType::kHalf;
  if (n == "complex64") return DType::kComplex64;
  if (n == "complex128") return DType::kComplex128;
  if (n == "resource") return DType::kResource;
  if (n == "variant") return DType::kVariant;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown dtype '", name,
      "' (expected float32, float64, float16, int8, int16, int32, int64, uint8, uint16, complex64, complex128, bool or string)"));
}

bool IsNumeric(DType dtype) { return IsFloating(dtype) || IsInteger(dtype); }
bool IsFloating(DType dtype) {
  return dtype == DType::kFloat || dtype == DType::kDouble || dtype == DType::kHalf;
}
bool IsInteger(DType dtype) {
  switch (dtype) {
    case DType::kInt32:
    case DType::kUint8:
    case DType::kInt16:
    case DType::kInt8:
    case DType::kInt64:
    case DType::kUint16:
      return true;
    default:
      return false;
  }
}

bool IsComplex(DType dtype) { return dtype == DType::kComplex64 || dtype == DType::kComplex128; }

bool IsValidDType(int value) {
  switch (static_cast<DType>(value)) {
    case DType::kFloat:
    case DType::kDouble:
    case DType::kInt32:
    case DType::kUint8:
    case DType::kInt16:
    case DType::kInt8:
    case DType::kString:
    case DType::kInt64:
    case DType::kBool:
    case DType::kUint16:
    case DType::kHalf:
    case DType::kComplex64:
    case DType::kComplex128:
    case DType::kResource:
    case DType::kVariant:
      return true;
    default:
      return false;
  }
}

}  // namespace tw
