// Shared pieces of the array kernels, which are split over array_kernels*.cc. Most array
// kernels only move bytes, so they work on raw memory by element size rather than being
// instantiated per dtype.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_ARRAY_KERNELS_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_ARRAY_KERNELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/array_ops_util.h"

namespace tw {

void RegisterArrayShapeKernels(KernelRegistry& r);  // array_kernels.cc
void RegisterArraySliceKernels(KernelRegistry& r);  // array_kernels_slice.cc
void RegisterArrayJoinKernels(KernelRegistry& r);   // array_kernels_join.cc
void RegisterArrayFillKernels(KernelRegistry& r);   // array_kernels_fill.cc
void RegisterArrayGatherKernels(KernelRegistry& r); // array_kernels_gather.cc

namespace array_kernels {

// The plain-data dtypes whose elements can be copied as bytes.
std::vector<DType> PodTypes();
// Registers `factory` for `op` on CPU, constrained to PodTypes() for the attr `type_attr`.
void RegisterPod(KernelRegistry& r, const char* op, KernelFactory factory,
                 const char* type_attr = "T");

// PodTypes() plus string: the dtypes of the kernels that only move elements
// (array_copy_strings.cc). Their kernels take the string helpers below for kString.
std::vector<DType> CopyableTypes();
void RegisterCopyable(KernelRegistry& r, const char* op, KernelFactory factory,
                      const char* type_attr = "T");

// The values of an int32 or int64 tensor, flattened.
DimVector IntValues(const Tensor& t);
// Errors unless t is a vector: "<what> must be a vector, but got shape [2,2]".
absl::Status CheckVector(const Tensor& t, const char* what);
// Errors unless t holds exactly one value.
absl::Status CheckScalar(const Tensor& t, const char* what);

// The five StridedSlice mask attrs of a StridedSlice or StridedSliceGrad node.
array_util::StridedSliceMasks ReadStridedSliceMasks(OpKernelConstruction& c);

// Row-major strides, in elements, of `dims`.
DimVector RowMajorStrides(absl::Span<const int64_t> dims);

// Where a strided slice sits inside the dense tensor of `full_dims`: the element offset of
// its first element and the element stride of each dim (StridedSlice reads this window,
// StridedSliceGrad writes it). Empty slices get offset 0 and strides 0.
struct StridedWindow {
  DimVector strides;
  int64_t offset = 0;
};
StridedWindow WindowOf(const array_util::StridedSliceResult& r, absl::Span<const int64_t> full_dims,
                       bool empty);

// Writes the dense row-major `dims` view of `src` into `dst`: element (i0, .., ik) comes
// from src + sum(i_j * strides[j]) elements. Strides may be 0 (broadcast) or negative.
void StridedCopy(const OpKernelContext& ctx, size_t elem_size, absl::Span<const int64_t> dims,
                 absl::Span<const int64_t> strides, const void* src, void* dst);
// Sets n elements of dst to the element at `value`.
void FillElements(const OpKernelContext& ctx, size_t elem_size, const void* value, int64_t n,
                  void* dst);

// Copies pieces between [outer, row] layouts: for each outer row r, piece i holds
// bytes[i] bytes at ptrs[i] + r * bytes[i]. Join gathers the pieces into rows of dst,
// Split scatters rows of src into the pieces.
void JoinRows(const OpKernelContext& ctx, int64_t outer, absl::Span<const char* const> ptrs,
              absl::Span<const int64_t> bytes, char* dst);
void SplitRows(const OpKernelContext& ctx, int64_t outer, const char* src,
               absl::Span<char* const> ptrs, absl::Span<const int64_t> bytes);

// The helpers above for strings, which are assigned, never memcpy'd; counts are in
// elements. Single-threaded: string copies are dominated by their allocations.
void StridedCopyStrings(absl::Span<const int64_t> dims, absl::Span<const int64_t> strides,
                        const std::string* src, std::string* dst);
void JoinStringRows(int64_t outer, absl::Span<const std::string* const> ptrs,
                    absl::Span<const int64_t> counts, std::string* dst);
void SplitStringRows(int64_t outer, const std::string* src, absl::Span<std::string* const> ptrs,
                     absl::Span<const int64_t> counts);

}  // namespace array_kernels
}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_ARRAY_KERNELS_H_
