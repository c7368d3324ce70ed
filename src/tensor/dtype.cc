#include "tensorweave/dtype.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tensorweave/tensor.h"

namespace tw {

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kFloat: return sizeof(float);
    case DType::kDouble: return sizeof(double);
    case DType::kInt32: return sizeof(int32_t);
    case DType::kString: return sizeof(std::string);
    case DType::kInt64: return sizeof(int64_t);
    case DType::kBool: return sizeof(bool);
    case DType::kResource: return sizeof(ResourceHandle);
    case DType::kInvalid: return 0;
  }
  return 0;
}

std::string DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat: return "float32";
    case DType::kDouble: return "float64";
    case DType::kInt32: return "int32";
    case DType::kString: return "string";
    case DType::kInt64: return "int64";
    case DType::kBool: return "bool";
    case DType::kResource: return "resource";
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
  if (n == "string") return DType::kString;
  if (n == "int64") return DType::kInt64;
  if (n == "bool") return DType::kBool;
  if (n == "resource") return DType::kResource;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown dtype '", name, "' (expected float32, float64, int32, int64, bool or string)"));
}

bool IsNumeric(DType dtype) { return IsFloating(dtype) || IsInteger(dtype); }
bool IsFloating(DType dtype) { return dtype == DType::kFloat || dtype == DType::kDouble; }
bool IsInteger(DType dtype) { return dtype == DType::kInt32 || dtype == DType::kInt64; }

bool IsValidDType(int value) {
  switch (static_cast<DType>(value)) {
    case DType::kFloat:
    case DType::kDouble:
    case DType::kInt32:
    case DType::kString:
    case DType::kInt64:
    case DType::kBool:
    case DType::kResource:
      return true;
    default:
      return false;
  }
}

}  // namespace tw
