// Eigen's GEMM over row-major buffers, shared by MatMul and the convolutions.
//
// Eigen's GEMM runs on one thread here, so large products are split into blocks of output
// rows (or columns, when those are more numerous) with ctx.ParallelFor, one GEMM per block.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_GEMM_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_GEMM_H_

// GCC 12 warns falsely inside its own AVX-512 intrinsics as Eigen inlines them (GCC bug
// 105593); set before any include so the system headers see it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <Eigen/Core>
#include <algorithm>

#include "kernels/op_kernel.h"
#include "tensor/tensor_eigen.h"

namespace tw {

// Rows (or columns) of the output handed out together. Each block's GEMM repacks the other
// operand, so blocks must stay large: on a 1024^3 float product, single-threaded blocks of
// 512/342/256/128/64 rows cost 0.96/1.0/1.04/1.24/1.37x one whole GEMM.
constexpr int64_t kGemmGroup = 64;

// c[m, n] = op(a) * op(b) (c += ... when accumulate), op = transpose when ta / tb; a is
// [m, k] ([k, m] if ta), b is [k, n] ([n, k] if tb), all row-major. Splits the work over
// ctx's pool when ctx is set.
template <typename T>
void Gemm(const OpKernelContext* ctx, const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n,
          bool ta, bool tb, bool accumulate = false) {
  if (m == 0 || n == 0) return;
  Eigen::Map<RowMatrix<T>> cm(c, m, n);
  if (k == 0) {
    if (!accumulate) cm.setZero();
    return;
  }
  Eigen::Map<const RowMatrix<T>> am(a, ta ? k : m, ta ? m : k);
  Eigen::Map<const RowMatrix<T>> bm(b, tb ? n : k, tb ? k : n);
  auto run = [&](const auto& opa, const auto& opb) {
    if (ctx == nullptr) {
      if (accumulate) {
        cm.noalias() += opa * opb;
      } else {
        cm.noalias() = opa * opb;
      }
      return;
    }
    const bool by_rows = m >= n;
    const int64_t split = by_rows ? m : n, other = by_rows ? n : m;
    const int64_t groups = (split + kGemmGroup - 1) / kGemmGroup;
    // Eigen reaches ~100 GFLOP/s per core on floats (2 flops per multiply-add): about
    // k * other / 64 ns per output line (more for the other types; this only sets the split).
    const int64_t cost = std::max<int64_t>(1, kGemmGroup * k * other / 64);
    ctx->ParallelFor(groups, cost, [&](int64_t begin, int64_t end) {
      const int64_t first = begin * kGemmGroup, len = std::min(split, end * kGemmGroup) - first;
      if (by_rows && accumulate) {
        cm.middleRows(first, len).noalias() += opa.middleRows(first, len) * opb;
      } else if (by_rows) {
        cm.middleRows(first, len).noalias() = opa.middleRows(first, len) * opb;
      } else if (accumulate) {
        cm.middleCols(first, len).noalias() += opa * opb.middleCols(first, len);
      } else {
        cm.middleCols(first, len).noalias() = opa * opb.middleCols(first, len);
      }
    });
  };
  if (!ta && !tb) {
    run(am, bm);
  } else if (ta && !tb) {
    run(am.transpose(), bm);
  } else if (!ta && tb) {
    run(am, bm.transpose());
  } else {
    run(am.transpose(), bm.transpose());
  }
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_GEMM_H_
