// DecodeCSV as TensorFlow's kernel (core/kernels/decode_csv_op.cc): each record split into
// fields by one delimiter char, RFC 4180 quoting when use_quote_delim ("" inside quotes is a
// quote), select_cols picking columns, empty or na_value fields taking the column's default
// (an error when it has none); numbers must parse whole (surrounding spaces allowed).
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

// TensorFlow's DataTypeString, which its messages quote.
std::string TfTypeName(DType t) {
  switch (t) {
    case DType::kFloat: return "float";
    case DType::kDouble: return "double";
    default: return DTypeName(t);
  }
}

bool ParseDouble(const std::string& s, double* out) {
  std::string t(absl::StripAsciiWhitespace(s));
  if (t.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

bool ParseInt64(const std::string& s, int64_t* out) {
  std::string t(absl::StripAsciiWhitespace(s));
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(t.c_str(), &end, 10);  // NOLINT(runtime/int)
  if (end != t.c_str() + t.size() || errno == ERANGE) return false;
  *out = v;
  return true;
}

class DecodeCsvOp : public OpKernel {
 public:
  explicit DecodeCsvOp(OpKernelConstruction& c) : OpKernel(c) {
    std::string delim;
    c.GetAttr("OUT_TYPE", &out_type_);
    c.GetAttr("field_delim", &delim);
    c.GetAttr("use_quote_delim", &use_quote_delim_);
    c.GetAttr("select_cols", &select_cols_);
    c.GetAttr("na_value", &na_value_);
    // TF's constructor checks, in its order (reported when the op runs).
    if (!select_cols_.empty() && out_type_.size() != select_cols_.size()) {
      error_ = "select_cols should match output size";
    }
    for (size_t i = 1; error_.empty() && i < select_cols_.size(); ++i) {
      if (select_cols_[i - 1] >= select_cols_[i]) error_ = "select_cols should be strictly increasing indices";
    }
    if (error_.empty() && !select_cols_.empty() && select_cols_.front() < 0) {
      error_ = "select_cols should be non-negative indices";
    }
    if (error_.empty() && delim.size() != 1) error_ = "field_delim should be only 1 char";
    delim_ = delim.empty() ? ',' : delim[0];
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    if (!error_.empty()) return absl::InvalidArgumentError(error_);
    const int n = static_cast<int>(out_type_.size());
    for (int i = 0; i < n; ++i) {
      const Tensor& d = ctx.input(1 + i);
      if (d.shape().rank() > 1) return absl::InvalidArgumentError("Each record default should be at most rank 1");
      if (d.NumElements() >= 2) {
        return absl::InvalidArgumentError(absl::StrCat("There should only be 1 default per field but field ", i,
                                                       " has ", d.NumElements()));
      }
    }
    const Tensor& records = ctx.input(0);
    std::vector<Tensor*> out(n);
    for (int i = 0; i < n; ++i) {
      TW_ASSIGN_OR_RETURN(out[i], ctx.allocate_output(i, records.shape(), out_type_[i]));
    }
    const std::string* r = records.data<std::string>();
    std::vector<std::string> fields;
    for (int64_t rec = 0; rec < records.NumElements(); ++rec) {
      fields.clear();
      TW_RETURN_IF_ERROR(ExtractFields(r[rec], &fields));
      if (static_cast<int>(fields.size()) != n) {
        return absl::InvalidArgumentError(
            absl::StrCat("Expect ", n, " fields but have ", fields.size(), " in record ", rec));
      }
      for (int f = 0; f < n; ++f) TW_RETURN_IF_ERROR(Store(ctx.input(1 + f), f, rec, &fields[f], out[f]));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Store(const Tensor& def, int f, int64_t rec, std::string* field, Tensor* out) const {
    const DType t = out_type_[f];
    if (field->empty() || *field == na_value_) {
      if (def.NumElements() != 1) {
        return absl::InvalidArgumentError(absl::StrCat("Field ", f, " is required but missing in record ", rec, "!"));
      }
      switch (t) {
        case DType::kInt32: out->data<int32_t>()[rec] = def.data<int32_t>()[0]; break;
        case DType::kInt64: out->data<int64_t>()[rec] = def.data<int64_t>()[0]; break;
        case DType::kFloat: out->data<float>()[rec] = def.data<float>()[0]; break;
        case DType::kDouble: out->data<double>()[rec] = def.data<double>()[0]; break;
        case DType::kString: out->data<std::string>()[rec] = def.data<std::string>()[0]; break;
        default: break;
      }
      return absl::OkStatus();
    }
    auto invalid = [&] {
      return absl::InvalidArgumentError(
          absl::StrCat("Field ", f, " in record ", rec, " is not a valid ", TfTypeName(t), ": ", *field));
    };
    switch (t) {
      case DType::kInt32: {
        int64_t v;
        if (!ParseInt64(*field, &v) || v < INT32_MIN || v > INT32_MAX) return invalid();
        out->data<int32_t>()[rec] = static_cast<int32_t>(v);
        return absl::OkStatus();
      }
      case DType::kInt64: {
        int64_t v;
        if (!ParseInt64(*field, &v)) return invalid();
        out->data<int64_t>()[rec] = v;
        return absl::OkStatus();
      }
      case DType::kFloat:
      case DType::kDouble: {
        double v;
        if (!ParseDouble(*field, &v)) return invalid();
        if (t == DType::kFloat) {
          out->data<float>()[rec] = static_cast<float>(v);
        } else {
          out->data<double>()[rec] = v;
        }
        return absl::OkStatus();
      }
      case DType::kString: out->data<std::string>()[rec] = std::move(*field); return absl::OkStatus();
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("csv: data type ", TfTypeName(t), " not supported in field ", f));
    }
  }

  // TF's ExtractFields: the selected fields of one record (CR/LF between fields skipped).
  absl::Status ExtractFields(const std::string& in, std::vector<std::string>* result) const {
    const bool all = select_cols_.empty();
    size_t i = 0, selector = 0;
    int64_t parsed = 0;
    if (in.empty()) return absl::OkStatus();
    while (i < in.size()) {
      if (in[i] == '\n' || in[i] == '\r') {
        ++i;
        continue;
      }
      const bool include = all || select_cols_[selector] == parsed;
      std::string field;
      if (use_quote_delim_ && in[i] == '"') {
        ++i;
        while (i < in.size() - 1 && (in[i] != '"' || in[i + 1] != delim_)) {
          if (in[i] != '"') {
            if (include) field += in[i];
            ++i;
          } else {
            if (in[i + 1] != '"') {
              return absl::InvalidArgumentError("Quote inside a string has to be escaped by another quote");
            }
            if (include) field += '"';
            i += 2;
          }
        }
        if (!(i < in.size() && in[i] == '"' && (i == in.size() - 1 || in[i + 1] == delim_))) {
          return absl::InvalidArgumentError("Quoted field has to end with quote followed by delim or end");
        }
        i += 2;
      } else {
        while (i < in.size() && in[i] != delim_) {
          if ((use_quote_delim_ && in[i] == '"') || in[i] == '\n' || in[i] == '\r') {
            return absl::InvalidArgumentError("Unquoted fields cannot have quotes/CRLFs inside");
          }
          if (include) field += in[i];
          ++i;
        }
        ++i;  // past the delimiter (or the end)
      }
      ++parsed;
      if (include) {
        result->push_back(std::move(field));
        if (++selector == select_cols_.size() && !all) return absl::OkStatus();
      }
    }
    // A record ending in the delimiter has an empty last field.
    if ((all || select_cols_[selector] == parsed) && in.back() == delim_) result->emplace_back();
    return absl::OkStatus();
  }

  std::vector<DType> out_type_;
  std::vector<int64_t> select_cols_;
  char delim_ = ',';
  bool use_quote_delim_ = true;
  std::string na_value_;
  std::string error_;
};

}  // namespace

void RegisterDecodeCsvKernels(KernelRegistry& r) { r.Register("DecodeCSV", kDeviceCpu, Factory<DecodeCsvOp>()); }

}  // namespace tw
