#include "tensor/tf_dtype_name.h"

#include "absl/strings/str_cat.h"

namespace tw {
namespace {

// tensorflow/core/framework/types.proto, values 0-23; a reference type adds 100.
constexpr const char* kNames[] = {
    "DT_INVALID", "DT_FLOAT",  "DT_DOUBLE", "DT_INT32",      "DT_UINT8",   "DT_INT16",   "DT_INT8",
    "DT_STRING",  "DT_COMPLEX64", "DT_INT64", "DT_BOOL",     "DT_QINT8",   "DT_QUINT8",  "DT_QINT32",
    "DT_BFLOAT16", "DT_QINT16", "DT_QUINT16", "DT_UINT16",   "DT_COMPLEX128", "DT_HALF", "DT_RESOURCE",
    "DT_VARIANT", "DT_UINT32", "DT_UINT64"};
constexpr int kCount = sizeof(kNames) / sizeof(kNames[0]);

}  // namespace

std::string TfDTypeName(int value) {
  if (value >= 0 && value < kCount) return absl::StrCat(kNames[value], " (", value, ")");
  if (value > 100 && value < 100 + kCount) return absl::StrCat(kNames[value - 100], "_REF (", value, ")");
  return absl::StrCat(value, " (not a TensorFlow dtype)");
}

}  // namespace tw
