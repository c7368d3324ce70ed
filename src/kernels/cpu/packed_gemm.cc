#include "kernels/cpu/packed_gemm.h"

#include <algorithm>

namespace tw {
namespace {

using Packet = Eigen::internal::packet_traits<float>::type;
constexpr int kPacket = Eigen::internal::packet_traits<float>::size;
constexpr int64_t kCols = PackedMatrix::kPanelCols;
static_assert(kCols == 2 * kPacket, "a tile row is two packets");
// Rows per tile: 2 * rows sums stay in registers with the panel's two packets and the
// broadcast (32 registers with AVX-512, 16 with AVX).
constexpr int kTileRows = kPacket >= 16 ? 8 : 6;

// c[R, cols] (+)= a[R, k] * panel[k, kCols]; cols <= kCols (the rest of the tile is padding).
template <int R>
void Tile(const float* a, int64_t lda, const float* panel, int64_t k, float* c, int64_t ldc, int64_t cols,
          bool accumulate) {
  using namespace Eigen::internal;  // NOLINT: the packet functions
  Packet sum[R][2];
  for (int r = 0; r < R; ++r) sum[r][0] = sum[r][1] = pset1<Packet>(0.0f);
  for (int64_t p = 0; p < k; ++p) {
    const Packet b0 = pload<Packet>(panel + p * kCols), b1 = pload<Packet>(panel + p * kCols + kPacket);
    for (int r = 0; r < R; ++r) {
      const Packet x = pset1<Packet>(a[r * lda + p]);
      sum[r][0] = pmadd(x, b0, sum[r][0]);
      sum[r][1] = pmadd(x, b1, sum[r][1]);
    }
  }
  if (cols == kCols) {
    for (int r = 0; r < R; ++r) {
      float* out = c + r * ldc;
      if (accumulate) {
        sum[r][0] = padd(sum[r][0], ploadu<Packet>(out));
        sum[r][1] = padd(sum[r][1], ploadu<Packet>(out + kPacket));
      }
      pstoreu(out, sum[r][0]);
      pstoreu(out + kPacket, sum[r][1]);
    }
    return;
  }
  alignas(64) float row[kCols];
  for (int r = 0; r < R; ++r) {
    pstore(row, sum[r][0]);
    pstore(row + kPacket, sum[r][1]);
    float* out = c + r * ldc;
    for (int64_t j = 0; j < cols; ++j) out[j] = accumulate ? out[j] + row[j] : row[j];
  }
}

// Tile<rows> for the last rows < kTileRows of a.
template <int R>
void ShortTile(int rows, const float* a, int64_t lda, const float* panel, int64_t k, float* c, int64_t ldc,
               int64_t cols, bool accumulate) {
  if constexpr (R > 0) {
    if (rows == R) return Tile<R>(a, lda, panel, k, c, ldc, cols, accumulate);
    ShortTile<R - 1>(rows, a, lda, panel, k, c, ldc, cols, accumulate);
  }
}

}  // namespace

PackedMatrix::PackedMatrix(const float* b, int64_t k, int64_t n, bool transposed)
    : k_(k), n_(n), panels_((n + kCols - 1) / kCols), data_(panels_ * k * kCols, 0.0f) {
  for (int64_t q = 0; q < panels_; ++q) {
    float* panel = data_.data() + q * k * kCols;
    const int64_t first = q * kCols, cols = std::min(kCols, n - first);
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t j = 0; j < cols; ++j) {
        panel[p * kCols + j] = transposed ? b[(first + j) * k + p] : b[p * n + first + j];
      }
    }
  }
}

void PackedMatrix::Multiply(const OpKernelContext* ctx, const float* a, int64_t lda, int64_t m, float* c,
                            int64_t ldc, bool accumulate) const {
  if (m == 0 || n_ == 0) return;
  if (k_ == 0) {
    if (!accumulate) {
      for (int64_t r = 0; r < m; ++r) std::fill(c + r * ldc, c + r * ldc + n_, 0.0f);
    }
    return;
  }
  auto panels = [&](int64_t begin, int64_t end) {
    for (int64_t q = begin; q < end; ++q) {
      const float* panel = data_.data() + q * k_ * kCols;
      const int64_t first = q * kCols, cols = std::min(kCols, n_ - first);
      int64_t r = 0;
      for (; r + kTileRows <= m; r += kTileRows) {
        Tile<kTileRows>(a + r * lda, lda, panel, k_, c + r * ldc + first, ldc, cols, accumulate);
      }
      if (r < m) {
        ShortTile<kTileRows - 1>(static_cast<int>(m - r), a + r * lda, lda, panel, k_, c + r * ldc + first, ldc,
                                 cols, accumulate);
      }
    }
  };
  if (ctx == nullptr) return panels(0, panels_);
  // ~64 multiply-adds per ns on one AVX-512 core (measured 80); this only sets the split.
  ctx->ParallelFor(panels_, std::max<int64_t>(1, m * k_ * kCols / 64), panels);
}

}  // namespace tw
