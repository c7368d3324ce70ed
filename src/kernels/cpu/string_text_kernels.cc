// Per-element text kernels as TensorFlow's: StringLength, StringStrip, StringLower/Upper
// (ASCII, encoding ''), Substr (BYTE or UTF8_CHAR units, negative pos counts from the end),
// RegexReplace (RE2, TF's rewrite syntax \1) and StringSplit / StringSplitV2 (a SparseTensor).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"
#include "re2/re2.h"

namespace tw {
namespace {

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

int64_t Utf8Length(absl::string_view s) {
  return std::count_if(s.begin(), s.end(), [](char c) { return !IsContinuation(c); });
}

// Byte offset of the `chars`-th character (or s.size() past the end).
size_t Utf8Offset(absl::string_view s, int64_t chars) {
  size_t i = 0;
  for (; i < s.size(); ++i) {
    if (!IsContinuation(s[i]) && chars-- == 0) return i;
  }
  return s.size();
}

absl::Status CheckUnit(const std::string& unit) {
  if (unit == "BYTE" || unit == "UTF8_CHAR") return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("Value for attr 'unit' of \"", unit,
                                                 "\" is not in the list of allowed values: \"BYTE\", \"UTF8_CHAR\""));
}

class StringLengthOp : public OpKernel {
 public:
  explicit StringLengthOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("unit", &unit_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(CheckUnit(unit_));
    const Tensor& in = ctx.input(0);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, in.shape(), DType::kInt32));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const std::string& s = in.data<std::string>()[i];
      out->data<int32_t>()[i] = static_cast<int32_t>(unit_ == "BYTE" ? s.size() : Utf8Length(s));
    }
    return absl::OkStatus();
  }

 private:
  std::string unit_;
};

// One string-to-string function applied to every element.
template <std::string (*Fn)(absl::string_view)>
class StringMapOp : public OpKernel {
 public:
  explicit StringMapOp(OpKernelConstruction& c) : OpKernel(c) {
    if (c.op() != "StringStrip") c.GetAttr("encoding", &encoding_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    if (!encoding_.empty()) {
      return absl::UnimplementedError(absl::StrCat("encoding '", encoding_, "' is not supported (only ASCII, encoding '')"));
    }
    const Tensor& in = ctx.input(0);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, in.shape(), DType::kString));
    for (int64_t i = 0; i < in.NumElements(); ++i) out->data<std::string>()[i] = Fn(in.data<std::string>()[i]);
    return absl::OkStatus();
  }

 private:
  std::string encoding_;
};

std::string Strip(absl::string_view s) { return std::string(absl::StripAsciiWhitespace(s)); }
std::string Lower(absl::string_view s) { return absl::AsciiStrToLower(s); }
std::string Upper(absl::string_view s) { return absl::AsciiStrToUpper(s); }

class SubstrOp : public OpKernel {
 public:
  explicit SubstrOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("T", &index_type_);
    c.GetAttr("unit", &unit_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(CheckUnit(unit_));
    const Tensor& in = ctx.input(0);
    const Tensor& pos = ctx.input(1);
    const Tensor& len = ctx.input(2);
    if (pos.shape() != len.shape()) {
      return absl::InvalidArgumentError(absl::StrCat("pos and len should have the same shape, got: ",
                                                     pos.shape().DebugString(), " vs. ", len.shape().DebugString()));
    }
    if (pos.rank() != 0 && pos.shape() != in.shape()) {
      return absl::InvalidArgumentError(absl::StrCat("Substr supports a scalar pos and len or ones shaped as input, got input ",
                                                     in.shape().DebugString(), " and pos ", pos.shape().DebugString()));
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, in.shape(), DType::kString));
    const bool utf8 = unit_ == "UTF8_CHAR";
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const std::string& s = in.data<std::string>()[i];
      const int64_t at = pos.rank() == 0 ? 0 : i;
      int64_t p = Index(pos, at);
      int64_t l = Index(len, at);
      const int64_t size = utf8 ? Utf8Length(s) : static_cast<int64_t>(s.size());
      // TensorFlow's bound: 0 <= pos <= size, or -size <= pos < 0 counting from the end.
      if (p > size || p < -size) {
        return absl::InvalidArgumentError(absl::StrCat("pos ", p, " out of range for string b'", s, "' at index ", i));
      }
      if (p < 0) p += size;
      l = std::max<int64_t>(0, std::min(l, size - p));
      if (utf8) {
        const size_t begin = Utf8Offset(s, p);
        const size_t end = Utf8Offset(s, p + l);
        out->data<std::string>()[i] = s.substr(begin, end - begin);
      } else {
        out->data<std::string>()[i] = s.substr(p, l);
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t Index(const Tensor& t, int64_t i) const {
    return index_type_ == DType::kInt32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
  }
  DType index_type_ = DType::kInt32;
  std::string unit_;
};

absl::Status Replace(OpKernelContext& ctx, const std::string& pat, const std::string& rw, bool global_);

class RegexReplaceOp : public OpKernel {
 public:
  explicit RegexReplaceOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("replace_global", &global_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& pattern = ctx.input(1);
    const Tensor& rewrite = ctx.input(2);
    if (pattern.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat("Pattern must be scalar, but received ", pattern.shape().DebugString()));
    }
    if (rewrite.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat("Replacement rewrite must be scalar, but received ",
                                                     rewrite.shape().DebugString()));
    }
    return Replace(ctx, pattern.data<std::string>()[0], rewrite.data<std::string>()[0], global_);
  }

 private:
  bool global_ = true;
};

// TensorFlow's Python wrapper emits this form when pattern and rewrite are constants.
class StaticRegexReplaceOp : public OpKernel {
 public:
  explicit StaticRegexReplaceOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("pattern", &pattern_);
    c.GetAttr("rewrite", &rewrite_);
    c.GetAttr("replace_global", &global_);
  }
  absl::Status Compute(OpKernelContext& ctx) override { return Replace(ctx, pattern_, rewrite_, global_); }

 private:
  std::string pattern_, rewrite_;
  bool global_ = true;
};

absl::Status Replace(OpKernelContext& ctx, const std::string& pat, const std::string& rw, bool global_) {
  {
    RE2::Options options;
    options.set_log_errors(false);  // The error goes back in the status, not to stderr.
    RE2 re(pat, options);
    if (!re.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid pattern: ", pat, ", error: ", re.error()));
    }
    // A rewrite naming a group the pattern lacks replaces nothing (RE2's and TensorFlow's behaviour).
    const Tensor& in = ctx.input(0);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, in.shape(), DType::kString));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      std::string s = in.data<std::string>()[i];
      if (global_) {
        RE2::GlobalReplace(&s, re, rw);
      } else {
        RE2::Replace(&s, re, rw);
      }
      out->data<std::string>()[i] = std::move(s);
    }
    return absl::OkStatus();
  }
}

// Both splits: tokens per row, written out as (indices, values, dense_shape).
absl::Status EmitSparse(OpKernelContext& ctx, const std::vector<std::vector<std::string>>& rows) {
  int64_t total = 0, widest = 0;
  for (const auto& row : rows) {
    total += static_cast<int64_t>(row.size());
    widest = std::max<int64_t>(widest, static_cast<int64_t>(row.size()));
  }
  TW_ASSIGN_OR_RETURN(Tensor * indices, ctx.allocate_output(0, TensorShape({total, 2}), DType::kInt64));
  TW_ASSIGN_OR_RETURN(Tensor * values, ctx.allocate_output(1, TensorShape({total}), DType::kString));
  TW_ASSIGN_OR_RETURN(Tensor * shape, ctx.allocate_output(2, TensorShape({2}), DType::kInt64));
  int64_t k = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t j = 0; j < rows[r].size(); ++j, ++k) {
      indices->data<int64_t>()[2 * k] = static_cast<int64_t>(r);
      indices->data<int64_t>()[2 * k + 1] = static_cast<int64_t>(j);
      values->data<std::string>()[k] = rows[r][j];
    }
  }
  shape->data<int64_t>()[0] = static_cast<int64_t>(rows.size());
  shape->data<int64_t>()[1] = widest;
  return absl::OkStatus();
}

absl::Status CheckSplitInputs(const Tensor& input, const Tensor& delimiter, const char* delimiter_name) {
  if (input.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("input must be a vector, got shape: ", input.shape().DebugString()));
  }
  if (delimiter.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(delimiter_name, " must be a scalar, got shape: ",
                                                   delimiter.shape().DebugString()));
  }
  return absl::OkStatus();
}

class StringSplitOp : public OpKernel {
 public:
  explicit StringSplitOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("skip_empty", &skip_empty_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckSplitInputs(in, ctx.input(1), "delimiter"));
    const std::string& delim = ctx.input(1).data<std::string>()[0];
    std::vector<std::vector<std::string>> rows(in.NumElements());
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const std::string& s = in.data<std::string>()[i];
      if (delim.empty()) {  // An empty delimiter splits into single bytes.
        for (char c : s) rows[i].emplace_back(1, c);
      } else if (skip_empty_) {
        rows[i] = absl::StrSplit(s, absl::ByAnyChar(delim), absl::SkipEmpty());
      } else {
        rows[i] = absl::StrSplit(s, absl::ByAnyChar(delim));
      }
    }
    return EmitSparse(ctx, rows);
  }

 private:
  bool skip_empty_ = true;
};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// Python's str.split(sep, maxsplit): sep '' means runs of whitespace, leading/trailing ignored.
std::vector<std::string> PySplit(absl::string_view s, absl::string_view sep, int64_t maxsplit) {
  std::vector<std::string> out;
  if (sep.empty()) {
    size_t i = 0;
    while (true) {
      while (i < s.size() && IsSpace(s[i])) ++i;
      if (i == s.size()) break;
      if (maxsplit >= 0 && static_cast<int64_t>(out.size()) == maxsplit) {
        size_t end = s.size();
        while (end > i && IsSpace(s[end - 1])) --end;
        out.emplace_back(s.substr(i, end - i));
        break;
      }
      size_t j = i;
      while (j < s.size() && !IsSpace(s[j])) ++j;
      out.emplace_back(s.substr(i, j - i));
      i = j;
    }
    return out;
  }
  if (s.empty()) return out;  // TensorFlow gives no token for an empty string.
  size_t start = 0;
  while (maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) {
    size_t at = s.find(sep, start);
    if (at == absl::string_view::npos) break;
    out.emplace_back(s.substr(start, at - start));
    start = at + sep.size();
  }
  out.emplace_back(s.substr(start));
  return out;
}

class StringSplitV2Op : public OpKernel {
 public:
  explicit StringSplitV2Op(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("maxsplit", &maxsplit_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckSplitInputs(in, ctx.input(1), "sep"));
    const std::string& sep = ctx.input(1).data<std::string>()[0];
    std::vector<std::vector<std::string>> rows(in.NumElements());
    for (int64_t i = 0; i < in.NumElements(); ++i) rows[i] = PySplit(in.data<std::string>()[i], sep, maxsplit_);
    return EmitSparse(ctx, rows);
  }

 private:
  int64_t maxsplit_ = -1;
};

}  // namespace

void RegisterStringTextKernels(KernelRegistry& r) {
  r.Register("StringLength", kDeviceCpu, Factory<StringLengthOp>());
  r.Register("StringStrip", kDeviceCpu, Factory<StringMapOp<Strip>>());
  r.Register("StringLower", kDeviceCpu, Factory<StringMapOp<Lower>>());
  r.Register("StringUpper", kDeviceCpu, Factory<StringMapOp<Upper>>());
  r.Register("Substr", kDeviceCpu, Factory<SubstrOp>());
  r.Register("RegexReplace", kDeviceCpu, Factory<RegexReplaceOp>());
  r.Register("StaticRegexReplace", kDeviceCpu, Factory<StaticRegexReplaceOp>());
  r.Register("StringSplit", kDeviceCpu, Factory<StringSplitOp>());
  r.Register("StringSplitV2", kDeviceCpu, Factory<StringSplitV2Op>());
}

}  // namespace tw
