#include "client/tensor_text.h"

#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  // Reads one value or nested list at depth `depth`, recording the shape.
  absl::Status Parse(int depth) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '[') {
      ++pos_;
      int64_t count = 0;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
      } else {
        while (true) {
          TW_RETURN_IF_ERROR(Parse(depth + 1));
          ++count;
          SkipSpace();
          if (pos_ < text_.size() && text_[pos_] == ',') {
            ++pos_;
            continue;
          }
          if (pos_ < text_.size() && text_[pos_] == ']') {
            ++pos_;
            break;
          }
          return Error("expected ',' or ']'");
        }
      }
      return Dim(depth, count);
    }
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != ']' &&
           !absl::ascii_isspace(text_[pos_])) {
      ++pos_;
    }
    if (start == pos_) return Error("expected a value");
    TW_RETURN_IF_ERROR(Dim(depth, -1));
    values_.push_back(text_.substr(start, pos_ - start));
    return absl::OkStatus();
  }

  absl::Status Finish() {
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the value");
    return absl::OkStatus();
  }

  const std::vector<int64_t>& dims() const { return dims_; }
  const std::vector<std::string>& values() const { return values_; }

 private:
  // Every list at one depth must have the same length; scalars sit at the leaf depth.
  absl::Status Dim(int depth, int64_t count) {
    if (leaf_depth_ < 0 && count < 0) leaf_depth_ = depth;
    if (count < 0) {
      if (depth != leaf_depth_) return Error("ragged nesting (lists of different depths)");
      return absl::OkStatus();
    }
    if (static_cast<int>(dims_.size()) <= depth) dims_.resize(depth + 1, -1);
    if (dims_[depth] == -1) {
      dims_[depth] = count;
    } else if (dims_[depth] != count) {
      return Error("ragged list (rows of different lengths)");
    }
    return absl::OkStatus();
  }
  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("cannot parse tensor '", text_, "' at character ",
                                                   pos_ + 1, ": ", what));
  }

  const std::string& text_;
  size_t pos_ = 0;
  int leaf_depth_ = -1;
  std::vector<int64_t> dims_;
  std::vector<std::string> values_;
};

}  // namespace

absl::StatusOr<Tensor> ParseTensorText(const std::string& text, DType dtype) {
  Parser parser(text);
  TW_RETURN_IF_ERROR(parser.Parse(0));
  TW_RETURN_IF_ERROR(parser.Finish());
  std::vector<int64_t> dims = parser.dims();
  for (int64_t& d : dims)
    if (d < 0) d = 0;  // "[]" has one zero-length dim.
  TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
  TW_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, shape));
  const auto& values = parser.values();
  if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot parse tensor '", text, "': ragged list"));
  }
  absl::Status status;
  auto bad = [&](const std::string& v) {
    status = absl::InvalidArgumentError(absl::StrCat("'", v, "' is not a valid ", DTypeName(dtype)));
  };
  for (size_t i = 0; i < values.size() && status.ok(); ++i) {
    const std::string& v = values[i];
    switch (dtype) {
      case DType::kFloat: {
        float f;
        if (!absl::SimpleAtof(v, &f)) bad(v);
        t.data<float>()[i] = f;
        break;
      }
      case DType::kDouble: {
        double d;
        if (!absl::SimpleAtod(v, &d)) bad(v);
        t.data<double>()[i] = d;
        break;
      }
      case DType::kInt32: {
        int32_t n;
        if (!absl::SimpleAtoi(v, &n)) bad(v);
        t.data<int32_t>()[i] = n;
        break;
      }
      case DType::kInt64: {
        int64_t n;
        if (!absl::SimpleAtoi(v, &n)) bad(v);
        t.data<int64_t>()[i] = n;
        break;
      }
      case DType::kBool: {
        bool b;
        if (!absl::SimpleAtob(v, &b)) bad(v);
        t.data<bool>()[i] = b;
        break;
      }
      default:
        return absl::InvalidArgumentError("cannot parse a tensor of dtype " + DTypeName(dtype));
    }
  }
  TW_RETURN_IF_ERROR(status);
  return t;
}

}  // namespace tw
