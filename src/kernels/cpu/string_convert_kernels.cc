// String conversions as TensorFlow's kernels: AsString (printf formats built from the attrs),
// StringToNumber (whole string must parse, surrounding whitespace allowed) and DecodeRaw
// (each string reinterpreted as an array of out_type, all strings the same length).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

bool IsFloatOrDouble(DType t) { return t == DType::kFloat || t == DType::kDouble; }

// TensorFlow's DataTypeString, which error messages quote ("float", not "float32").
std::string TfTypeName(DType t) {
  if (t == DType::kFloat) return "float";
  if (t == DType::kDouble) return "double";
  return DTypeName(t);
}

class AsStringOp : public OpKernel {
 public:
  explicit AsStringOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("T", &dtype_);
    int precision = -1, width = -1;
    bool scientific = false, shortest = false;
    std::string fill;
    c.GetAttr("precision", &precision);
    c.GetAttr("scientific", &scientific);
    c.GetAttr("shortest", &shortest);
    c.GetAttr("width", &width);
    c.GetAttr("fill", &fill);
    // Checks in TensorFlow's order, so the first complaint is the same.
    const std::string type = DTypeName(dtype_);
    if (fill.size() > 1) {
      error_ = absl::StrCat("Fill string must be one or fewer characters");
    } else if (scientific && shortest) {
      error_ = "Cannot select both scientific and shortest notation";
    } else if (!IsFloatOrDouble(dtype_) && (scientific || shortest || precision > -1)) {
      error_ = absl::StrCat(scientific ? "scientific" : shortest ? "shortest" : "precision",
                            " not supported for datatype ", type);
    } else if (dtype_ == DType::kBool && (width > -1 || !fill.empty())) {
      error_ = absl::StrCat(width > -1 ? "width" : "fill", " not supported for datatype ", type);
    }
    format_ = "%";
    if (!fill.empty()) {
      switch (fill[0]) {
        case ' ': case '+': case '-': case '0': case '#': format_ += fill; break;
        default:
          if (error_.empty()) error_ = absl::StrCat("Fill argument not supported: \"", fill, "\"");
      }
    }
    if (width > -1) absl::StrAppend(&format_, width);
    if (precision > -1) absl::StrAppend(&format_, ".", precision);
    if (IsFloatOrDouble(dtype_)) {
      format_ += shortest ? "g" : scientific ? "e" : "f";
    } else if (dtype_ == DType::kInt64) {
      format_ += "lld";
    } else {
      format_ += "d";
    }
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    if (!error_.empty()) return absl::InvalidArgumentError(error_);
    const Tensor& in = ctx.input(0);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, in.shape(), DType::kString));
    std::string* o = out->data<std::string>();
    const int64_t n = in.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      switch (dtype_) {
        case DType::kFloat: o[i] = Format(static_cast<double>(in.data<float>()[i])); break;
        case DType::kDouble: o[i] = Format(in.data<double>()[i]); break;
        case DType::kInt8: o[i] = Format(static_cast<int>(in.data<int8_t>()[i])); break;
        case DType::kInt16: o[i] = Format(static_cast<int>(in.data<int16_t>()[i])); break;
        case DType::kInt32: o[i] = Format(in.data<int32_t>()[i]); break;
        case DType::kUint8: o[i] = Format(static_cast<int>(in.data<uint8_t>()[i])); break;
        case DType::kUint16: o[i] = Format(static_cast<int>(in.data<uint16_t>()[i])); break;
        case DType::kInt64: o[i] = Format(static_cast<long long>(in.data<int64_t>()[i])); break;  // NOLINT
        case DType::kBool: o[i] = in.data<bool>()[i] ? "true" : "false"; break;
        default: return absl::InvalidArgumentError(absl::StrCat("Type not supported: ", DTypeName(dtype_)));
      }
    }
    return absl::OkStatus();
  }

 private:
  template <typename V>
  std::string Format(V v) const {
    char buf[128];
    int len = std::snprintf(buf, sizeof(buf), format_.c_str(), v);
    if (len < static_cast<int>(sizeof(buf))) return std::string(buf, len);
    std::string big(len + 1, '\0');
    std::snprintf(big.data(), big.size(), format_.c_str(), v);
    big.resize(len);
    return big;
  }

  DType dtype_ = DType::kInvalid;
  std::string format_;
  std::string error_;  // A bad attr combination, reported when the op runs (as TF's constructor would).
};

// Whole-string parses; leading/trailing ASCII whitespace is allowed, as TensorFlow's safe_strto*.
bool ParseDouble(absl::string_view s, double* out) {
  std::string t(absl::StripAsciiWhitespace(s));
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

bool ParseInt64(absl::string_view s, int64_t* out) {
  std::string t(absl::StripAsciiWhitespace(s));
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(t.c_str(), &end, 10);  // NOLINT
  if (end != t.c_str() + t.size() || errno == ERANGE) return false;
  *out = v;
  return true;
}

class StringToNumberOp : public OpKernel {
 public:
  explicit StringToNumberOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("out_type", &out_type_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, in.shape(), out_type_));
    const std::string* s = in.data<std::string>();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      bool ok = false;
      if (IsFloatOrDouble(out_type_)) {
        double v = 0;
        ok = ParseDouble(s[i], &v);
        if (out_type_ == DType::kFloat) {
          out->data<float>()[i] = static_cast<float>(v);
        } else {
          out->data<double>()[i] = v;
        }
      } else {
        int64_t v = 0;
        ok = ParseInt64(s[i], &v);
        if (out_type_ == DType::kInt32) {
          ok = ok && v >= INT32_MIN && v <= INT32_MAX;
          out->data<int32_t>()[i] = static_cast<int32_t>(v);
        } else {
          out->data<int64_t>()[i] = v;
        }
      }
      if (!ok) return absl::InvalidArgumentError(absl::StrCat("StringToNumberOp could not correctly convert string: ", s[i]));
    }
    return absl::OkStatus();
  }

 private:
  DType out_type_ = DType::kFloat;
};

class DecodeRawOp : public OpKernel {
 public:
  explicit DecodeRawOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("out_type", &out_type_);
    c.GetAttr("little_endian", &little_endian_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const std::string* s = in.data<std::string>();
    const int64_t n = in.NumElements();
    const size_t width = DTypeSize(out_type_);
    size_t str_size = 0;
    if (n > 0) str_size = s[0].size();
    for (int64_t i = 0; i < n; ++i) {
      if (s[i].size() != str_size) {
        return absl::InvalidArgumentError(absl::StrCat("DecodeRaw requires input strings to all be the same size, but element ",
                                                       i, " has size ", str_size, " != ", s[i].size()));
      }
    }
    if (str_size % width != 0) {
      return absl::InvalidArgumentError(absl::StrCat("Input to DecodeRaw has length ", str_size,
                                                     " that is not a multiple of ", width, ", the size of ",
                                                     TfTypeName(out_type_)));
    }
    TensorShape shape = in.shape();
    shape.AddDim(static_cast<int64_t>(str_size / width));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, out_type_));
    char* dst = reinterpret_cast<char*>(out->raw_data());
    const bool swap = !little_endian_ && width > 1;  // This machine is little-endian.
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst + i * str_size, s[i].data(), str_size);
      if (swap) {
        for (size_t e = 0; e < str_size; e += width) std::reverse(dst + i * str_size + e, dst + i * str_size + e + width);
      }
    }
    return absl::OkStatus();
  }

 private:
  DType out_type_ = DType::kFloat;
  bool little_endian_ = true;
};

}  // namespace

void RegisterStringConvertKernels(KernelRegistry& r) {
  r.Register("AsString", kDeviceCpu, Factory<AsStringOp>());
  r.Register("StringToNumber", kDeviceCpu, Factory<StringToNumberOp>());
  r.Register("DecodeRaw", kDeviceCpu, Factory<DecodeRawOp>());
}

}  // namespace tw
