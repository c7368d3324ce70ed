#include "kernels/cpu/summarize_value.h"

#include <algorithm>
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
std::string Element(const T& v, bool print_v2) {
  if constexpr (std::is_same_v<T, float>) {
    return FormatFloat(v, FLT_DIG, FLT_DIG + 3);
  } else if constexpr (std::is_same_v<T, double>) {
    return FormatFloat(v, DBL_DIG, DBL_DIG + 2);
  } else if constexpr (std::is_same_v<T, half>) {
    return FormatFloat(HalfToFloat(v), FLT_DIG, FLT_DIG + 3);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return print_v2 ? absl::StrCat("\"", absl::Utf8SafeCEscape(v), "\"") : absl::Utf8SafeCEscape(v);
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
      out->append(Element(data[(*index)++], false));
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

// TensorFlow's PrintDimSpacing: a space between the elements of the innermost dimension;
// between the slices of an outer one, a newline per dimension below it, then an indent.
void DimSpacing(int d, int rank, std::string* out) {
  if (d == rank - 1) {
    out->append(" ");
    return;
  }
  out->append(rank - d - 1, '\n');
  out->append(d + 1, ' ');
}

// TensorFlow's PrintOneDimV2: dimension d of the slice at `offset`, its first and last
// `ends` entries (all when it has at most 2 * ends), "..." between.
template <typename T>
void PrintDimV2(int d, const std::vector<int64_t>& dims, int64_t ends, const T* data, int64_t offset,
                std::string* out) {
  const int rank = static_cast<int>(dims.size());
  if (d == rank) {
    out->append(Element(data[offset], true));
    return;
  }
  int64_t stride = 1;
  for (int i = d + 1; i < rank; ++i) stride *= dims[i];
  const int64_t n = dims[d];
  out->append("[");
  for (int64_t i = 0; i < ends && i < n; ++i) {
    if (i > 0) DimSpacing(d, rank, out);
    PrintDimV2(d + 1, dims, ends, data, offset + stride * i, out);
  }
  if (n > 2 * ends) {
    DimSpacing(d, rank, out);
    out->append("...");
  }
  for (int64_t i = std::max(ends, n - ends); i < n; ++i) {
    DimSpacing(d, rank, out);
    PrintDimV2(d + 1, dims, ends, data, offset + stride * i, out);
  }
  out->append("]");
}

// `limit` is min(max_entries, elements); print_v2 takes it as the entries kept at each end.
template <typename T>
std::string Summarize(const Tensor& t, int64_t limit, bool print_v2) {
  const int64_t n = t.NumElements();
  const T* data = t.data<T>();
  std::string out;
  if (t.rank() == 0) {
    if (limit > 0) out = Element(data[0], print_v2);
    if (n > limit) out.append("...");
    return out;
  }
  std::vector<int64_t> dims(t.shape().dims().begin(), t.shape().dims().end());
  if (print_v2) {
    PrintDimV2(0, dims, limit, data, 0, &out);
    return out;
  }
  int64_t index = 0;
  PrintDim(0, dims, limit, data, &index, &out);
  if (n > limit) out.append("...");
  return out;
}

// The element of the types TensorFlow's SummarizeValue has no printer for: complex is "?",
// a handle or variant its description in angle brackets.
std::string IrregularElement(const Tensor& t, int64_t i) {
  if (t.dtype() == DType::kResource) {
    const ResourceHandle& h = t.data<ResourceHandle>()[i];
    return absl::StrCat("<ResourceHandle(name=\"", h.name, "\", device=\"", h.device, "\", container=\"",
                        h.container, "\")>");
  }
  if (t.dtype() == DType::kVariant) return absl::StrCat("<", t.data<VariantValue>()[i].type_name, ">");
  return "?";
}

}  // namespace

std::string SummarizeValue(const Tensor& t, int64_t max_entries, bool print_v2) {
  const int64_t n = t.NumElements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  std::string out;
  if (t.dtype() == DType::kString) return Summarize<std::string>(t, limit, print_v2);
  if (t.dtype() == DType::kBool && limit == 0) return out;  // TensorFlow 2.20 prints no "..." nor brackets
  auto summarize = [&](auto tag) { out = Summarize<TypeOf<decltype(tag)>>(t, limit, print_v2); };
  if (VisitPod(t.dtype(), summarize) || VisitSmall(t.dtype(), summarize)) return out;
  // Flat, however many dimensions, as TensorFlow's fallback prints them.
  const bool brackets = print_v2 && t.rank() > 0;
  if (brackets) out.append("[");
  for (int64_t i = 0; i < limit; ++i) {
    if (i > 0) out.append(" ");
    out.append(IrregularElement(t, i));
  }
  if (limit < n) out.append("...");
  if (brackets) out.append("]");
  return out;
}

}  // namespace tw
