#include "kernels/cpu/packed_gemm.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/threadpool.h"

namespace tw {
namespace {

// Checks c (+)= a * B against a loop in double, for b given as [k, n] or, transposed, [n, k];
// a and c have padding columns (lda > k, ldc > n) that must stay untouched.
void Check(int64_t m, int64_t k, int64_t n, bool transposed, bool accumulate,
           const OpKernelContext* ctx = nullptr) {
  SCOPED_TRACE(testing::Message() << "m=" << m << " k=" << k << " n=" << n << " transposed=" << transposed
                                  << " accumulate=" << accumulate);
  std::mt19937 gen(static_cast<uint32_t>(m * 131 + k * 17 + n));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const int64_t lda = k + 3, ldc = n + 5;
  std::vector<float> a(m * lda), b(k * n), c(m * ldc);
  for (float& v : a) v = dist(gen);
  for (float& v : b) v = dist(gen);
  for (float& v : c) v = dist(gen);
  const std::vector<float> c0 = c;
  // B[p][j]: b read as [k, n], or as the transpose of [n, k].
  auto at = [&](int64_t p, int64_t j) { return transposed ? b[j * k + p] : b[p * n + j]; };
  PackedMatrix packed(b.data(), k, n, transposed);
  EXPECT_EQ(packed.rows(), k);
  EXPECT_EQ(packed.cols(), n);
  packed.Multiply(ctx, a.data(), lda, m, c.data(), ldc, accumulate);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      if (j >= n) {
        ASSERT_EQ(c[i * ldc + j], c0[i * ldc + j]) << "padding at " << i << "," << j;
        continue;
      }
      double want = accumulate ? c0[i * ldc + j] : 0.0;
      for (int64_t p = 0; p < k; ++p) want += double{a[i * lda + p]} * at(p, j);
      ASSERT_NEAR(c[i * ldc + j], want, 1e-4 * (1 + k)) << "at " << i << "," << j;
    }
  }
}

TEST(PackedMatrix, MatchesNaiveProduct) {
  const int64_t w = PackedMatrix::kPanelCols;
  // Rows around the tile heights (6 and 8), columns around the panel width and the packet.
  for (int64_t m : {1, 5, 7, 8, 9, 17, 32}) {
    for (int64_t n : {int64_t{1}, w / 2 + 1, w - 1, w, w + 3, 3 * w + 7}) {
      for (int64_t k : {1, 13, 64}) {
        for (bool transposed : {false, true}) {
          for (bool accumulate : {false, true}) Check(m, k, n, transposed, accumulate);
        }
      }
    }
  }
}

// Products large enough that the pool splits the panels between its threads.
TEST(PackedMatrix, PanelsSplitAcrossThreads) {
  ThreadPool pool("packed_gemm_test", 4);
  OpKernelContext::Params params;
  params.intra_op_pool = &pool;
  OpKernelContext ctx(params);
  for (bool accumulate : {false, true}) {
    Check(37, 1000, 8 * PackedMatrix::kPanelCols + 5, false, accumulate, &ctx);
    Check(32, 1024, 256, true, accumulate, &ctx);
  }
}

TEST(PackedMatrix, EmptySizes) {
  Check(0, 4, 5, false, false);
  Check(3, 4, 0, false, true);
  // k == 0: c = 0 without accumulate, unchanged with it.
  Check(3, 0, 5, false, false);
  Check(3, 0, 5, true, true);
}

}  // namespace
}  // namespace tw
