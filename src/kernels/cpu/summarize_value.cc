#include "kernels/cpu/summarize_value.h"

#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "tensor/half.h"

namespace tw {
namespace {

// The shortest of %.{digits}g and %.{more}g that reads back as the value (TensorFlow's
// FloatToBuffer / DoubleToBuffer): 0.1, 1e+10, 0.333333343.
template <typename F>
std::string FormatFloat(F v, int digits, int more) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, static_cast<double>(v));
  F back;
  if constexpr (std::is_same_v<F, float>) {
    back = std::strtof(buf, nullptr);
  } else {
    back = std::strtod(buf, nullptr);
  }
  if (back != v && v == v) std::snprintf(buf, sizeof(buf), "%.*g", more, static_cast<double>(v));
  return buf;
}

template <typename T>
std::string Element(const T& v) {
  if constexpr (std::is_same_v<T, float>) {
    return FormatFloat(v, FLT_DIG, FLT_DIG + 3);
  } else if constexpr (std::is_same_v<T, double>) {
    return FormatFloat(v, DBL_DIG, DBL_DIG + 2);
  } else if constexpr (std::is_same_v<T, half>) {
    return FormatFloat(HalfToFloat(v), FLT_DIG, FLT_DIG + 3);
  } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return absl::StrCat("(", Element(v.real()), ",", Element(v.imag()), ")");  // TF's PrintOneElement.
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return absl::Utf8SafeCEscape(v);
  } else {
    return absl::StrCat(static_cast<int64_t>(v));
  }
}

// One dimension of the nesting: brackets around each slice of an outer dim, elements
// separated by spaces in the innermost; stops once `limit` elements are printed.
template <typename T>
void PrintDim(int d, const std::vector<int64_t>& dims, int64_t limit, const T* data, int64_t* index,
              std::string* out) {
  if (*index >= limit) return;
  const int last = static_cast<int>(dims.size()) - 1;
  if (d == last) {
    for (int64_t i = 0; i < dims[d]; ++i) {
      if (*index >= limit) {
        if (d != 0) out->append("...");
        return;
      }
      if (i > 0) out->append(" ");
      out->append(Element(data[(*index)++]));
    }
    return;
  }
  for (int64_t i = 0; i < dims[d]; ++i) {
    const bool open = *index < limit;
    if (open) out->append("[");
    PrintDim(d + 1, dims, limit, data, index, out);
    if (open) out->append("]");
  }
}

template <typename T>
std::string Summarize(const Tensor& t, int64_t max_entries) {
  const int64_t n = t.NumElements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  const T* data = t.data<T>();
  std::string out;
  if (t.rank() == 0) {
    if (limit > 0) out = Element(data[0]);
    return out;
  }
  std::vector<int64_t> dims(t.shape().dims().begin(), t.shape().dims().end());
  int64_t index = 0;
  PrintDim(0, dims, limit, data, &index, &out);
  if (n > limit) out.append("...");
  return out;
}

}  // namespace

std::string SummarizeValue(const Tensor& t, int64_t max_entries) {
  if (t.dtype() == DType::kString) return Summarize<std::string>(t, max_entries);
  std::string out = absl::StrCat("<", DTypeName(t.dtype()), " tensor>");
  VisitAllPod(t.dtype(), [&](auto tag) { out = Summarize<TypeOf<decltype(tag)>>(t, max_entries); });
  return out;
}

}  // namespace tw
