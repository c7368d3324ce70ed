// The string side of the array kernels' copy helpers (array_copy.cc moves plain bytes).
// A std::string is an object that owns memory: copying its bytes would make two strings
// free one block, so these assign element by element and count in elements, not bytes.
#include <algorithm>
#include <string>

#include "kernels/cpu/array_kernels.h"

namespace tw::array_kernels {

std::vector<DType> CopyableTypes() {
  std::vector<DType> types = PodTypes();
  types.push_back(DType::kString);
  return types;
}

void RegisterCopyable(KernelRegistry& r, const char* op, KernelFactory factory, const char* type_attr) {
  r.Register({op, kDeviceCpu, std::move(factory), type_attr, CopyableTypes()});
}

void StridedCopyStrings(absl::Span<const int64_t> dims, absl::Span<const int64_t> strides,
                        const std::string* src, std::string* dst) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (n == 0) return;
  const int rank = static_cast<int>(dims.size());
  DimVector index(rank, 0);
  int64_t offset = 0;
  for (int64_t k = 0; k < n; ++k) {
    dst[k] = src[offset];
    for (int i = rank - 1; i >= 0; --i) {  // Odometer step: the last dim moves fastest.
      if (++index[i] < dims[i]) {
        offset += strides[i];
        break;
      }
      offset -= strides[i] * (dims[i] - 1);
      index[i] = 0;
    }
  }
}

void JoinStringRows(int64_t outer, absl::Span<const std::string* const> ptrs,
                    absl::Span<const int64_t> counts, std::string* dst) {
  for (int64_t r = 0; r < outer; ++r) {
    for (size_t i = 0; i < ptrs.size(); ++i) {
      dst = std::copy_n(ptrs[i] + r * counts[i], counts[i], dst);
    }
  }
}

void SplitStringRows(int64_t outer, const std::string* src, absl::Span<std::string* const> ptrs,
                     absl::Span<const int64_t> counts) {
  for (int64_t r = 0; r < outer; ++r) {
    for (size_t i = 0; i < ptrs.size(); ++i) {
      std::copy_n(src, counts[i], ptrs[i] + r * counts[i]);
      src += counts[i];
    }
  }
}

}  // namespace tw::array_kernels
