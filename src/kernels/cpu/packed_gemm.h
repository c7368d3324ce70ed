// A float matrix packed once as the right operand of many products: BlockLSTM multiplies
// each time step's h by the same recurrent weight, and Eigen's GEMM would repack that
// weight (1 MiB at 256 units) on every call, ~16% of the training step.
//
// Packing cuts b [k, n] into panels of kPanelCols columns, each panel's rows contiguous
// (the last panel zero-padded). A product walks panel by panel and, inside, tiles of a few
// rows of a: each tile keeps rows x kPanelCols sums in vector registers over the whole k,
// one broadcast element of a times the panel's row per multiply-add, so c is read and
// written once.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_PACKED_GEMM_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_PACKED_GEMM_H_

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "kernels/op_kernel.h"

namespace tw {

class PackedMatrix {
 public:
  // Two of Eigen's vector packets: 32 floats with AVX-512, 16 with AVX.
  static constexpr int64_t kPanelCols = 2 * Eigen::internal::packet_traits<float>::size;

  // Packs b, row-major [k, n]; when `transposed`, b is row-major [n, k] and B is its transpose.
  PackedMatrix(const float* b, int64_t k, int64_t n, bool transposed);

  int64_t rows() const { return k_; }
  int64_t cols() const { return n_; }

  // c[m, n] = a[m, k] * B, or c += a * B when `accumulate`; a's rows lie lda floats apart,
  // c's ldc. Panels are spread over ctx's pool when ctx is set.
  void Multiply(const OpKernelContext* ctx, const float* a, int64_t lda, int64_t m, float* c, int64_t ldc,
                bool accumulate) const;

 private:
  int64_t k_, n_, panels_;
  std::vector<float, Eigen::aligned_allocator<float>> data_;  // panels_ x [k_, kPanelCols]
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_PACKED_GEMM_H_
