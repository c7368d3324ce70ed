// Conv2DBackpropFilter for float32 NHWC with AVX-512, output channels in multiples of 16:
// dw[ky, kx, c, o] = sum over positions of x[n, iy, ix, c] * dy[n, oy, ox, o]. A tile keeps
// up to 6 input channels x 64 output channels of dw in 24 registers while it runs over the
// output positions of a chunk of rows (one broadcast input value times four dy vectors per
// channel); no patches are built. The threads split each chunk by (tap, channel tile),
// parts of dw no other thread writes, so results do not depend on the thread count.
// Declines (returns false) where it does not apply, as conv_direct_avx512.h.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_CONV_FILTER_GRAD_AVX512_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_CONV_FILTER_GRAD_AVX512_H_

#include <algorithm>
#include <vector>

#include "kernels/cpu/conv_direct_avx512.h"
#include "kernels/op_kernel.h"
#include "ops/conv_geometry.h"

namespace tw {
namespace conv {

#if defined(__AVX512F__)

// dw[i][16v + l] (rows out_c apart) += sum over q < npos of x[q][c0 + i] * dy[q][16v + l].
template <int NC, int NV>
void FilterTile(const float* const* x, int64_t c0, const float* const* dy, int64_t o0, int64_t npos, float* dw,
                int64_t out_c) {
  __m512 acc[NC][NV];
  for (int i = 0; i < NC; ++i) {
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_loadu_ps(dw + i * out_c + 16 * v);
  }
  for (int64_t q = 0; q < npos; ++q) {
    const float* xq = x[q] + c0;
    const float* g = dy[q] + o0;
    __m512 gv[NV];
    for (int v = 0; v < NV; ++v) gv[v] = _mm512_loadu_ps(g + 16 * v);
    for (int i = 0; i < NC; ++i) {
      const __m512 xb = _mm512_set1_ps(xq[i]);
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(xb, gv[v], acc[i][v]);
    }
  }
  for (int i = 0; i < NC; ++i) {
    for (int v = 0; v < NV; ++v) _mm512_storeu_ps(dw + i * out_c + 16 * v, acc[i][v]);
  }
}

template <int NV>
void FilterTileN(int nc, const float* const* x, int64_t c0, const float* const* dy, int64_t o0, int64_t npos,
                 float* dw, int64_t out_c) {
  switch (nc) {
    case 6: return FilterTile<6, NV>(x, c0, dy, o0, npos, dw, out_c);
    case 5: return FilterTile<5, NV>(x, c0, dy, o0, npos, dw, out_c);
    case 4: return FilterTile<4, NV>(x, c0, dy, o0, npos, dw, out_c);
    case 3: return FilterTile<3, NV>(x, c0, dy, o0, npos, dw, out_c);
    case 2: return FilterTile<2, NV>(x, c0, dy, o0, npos, dw, out_c);
    default: return FilterTile<1, NV>(x, c0, dy, o0, npos, dw, out_c);
  }
}

// The (x, dy) row pairs of output rows [row0, row1) (over the batch) at tap (ky, kx):
// positions whose input lies in the padding add nothing and are left out.
inline void TapPositions(const float* x, const float* dy, const Conv2DShape& s, const Conv2DAttrs& a, int64_t row0,
                         int64_t row1, int64_t ky, int64_t kx, std::vector<const float*>& xs,
                         std::vector<const float*>& gs) {
  xs.clear();
  gs.clear();
  for (int64_t row = row0; row < row1; ++row) {
    const int64_t n = row / s.out_h, oy = row % s.out_h;
    const int64_t iy = oy * a.stride_h - s.pad_top + ky * a.dilation_h;
    if (iy < 0 || iy >= s.in_h) continue;
    const float* image_row = x + (n * s.in_h + iy) * s.in_w * s.in_c;
    for (int64_t ox = 0; ox < s.out_w; ++ox) {
      const int64_t ix = ox * a.stride_w - s.pad_left + kx * a.dilation_w;
      if (ix < 0 || ix >= s.in_w) continue;
      xs.push_back(image_row + ix * s.in_c);
      gs.push_back(dy + (row * s.out_w + ox) * s.out_c);
    }
  }
}

// Adds those positions' products to dw's tap `tap`, input channels [c0, c0 + nc).
inline void FilterGradUnit(const std::vector<const float*>& xs, const std::vector<const float*>& gs,
                           const Conv2DShape& s, int64_t tap, int64_t c0, int nc, float* dw) {
  const int64_t npos = static_cast<int64_t>(xs.size());
  float* d = dw + (tap * s.in_c + c0) * s.out_c;
  int64_t o0 = 0;
  for (; o0 + 64 <= s.out_c; o0 += 64) FilterTileN<4>(nc, xs.data(), c0, gs.data(), o0, npos, d + o0, s.out_c);
  const int64_t rest = (s.out_c - o0) / 16;
  if (rest == 3) FilterTileN<3>(nc, xs.data(), c0, gs.data(), o0, npos, d + o0, s.out_c);
  if (rest == 2) FilterTileN<2>(nc, xs.data(), c0, gs.data(), o0, npos, d + o0, s.out_c);
  if (rest == 1) FilterTileN<1>(nc, xs.data(), c0, gs.data(), o0, npos, d + o0, s.out_c);
}

#endif  // __AVX512F__

// Output rows taken together: their x and dy rows stay in cache while every tap and tile
// of input channels passes over them.
constexpr int64_t kFilterGradChunkRows = 32;

template <typename T>
bool Conv2DBackpropFilterDirect(const OpKernelContext* ctx, const T* x, const T* dy, const Conv2DShape& s,
                                const Conv2DAttrs& a, T* dw) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    // Fewer than 4 input channels leave too few accumulators per tile to hide the
    // multiply-add latency (a first layer on 1-3 colour channels): im2col does better.
    if (!DirectConvApplies<T>(s.out_c) || s.in_c < 4) return false;
    std::fill(dw, dw + s.k_h * s.k_w * s.in_c * s.out_c, 0.0f);
    const int64_t rows = s.batch * s.out_h;
    if (rows == 0 || s.in_c == 0) return true;
    // Units of work that write disjoint parts of dw: (tap, tile of <= 6 input channels).
    const int64_t tiles = (s.in_c + 5) / 6, units = s.k_h * s.k_w * tiles;
    const int64_t cost = std::max<int64_t>(1, kFilterGradChunkRows * s.out_w * 6 * s.out_c / 32);
    // Chunks of rows one after the other; within one, the units over the threads. Each dw
    // element is summed by one unit in row order: the same result for any thread count.
    std::vector<std::vector<const float*>> xs(s.k_h * s.k_w), gs(s.k_h * s.k_w);
    for (int64_t row0 = 0; row0 < rows; row0 += kFilterGradChunkRows) {
      const int64_t row1 = std::min(rows, row0 + kFilterGradChunkRows);
      for (int64_t tap = 0; tap < s.k_h * s.k_w; ++tap) {
        TapPositions(x, dy, s, a, row0, row1, tap / s.k_w, tap % s.k_w, xs[tap], gs[tap]);
      }
      auto run = [&](int64_t begin, int64_t end) {
        for (int64_t unit = begin; unit < end; ++unit) {
          const int64_t tap = unit / tiles, tile = unit % tiles;
          const int64_t c0 = tile * (s.in_c / tiles) + std::min(tile, s.in_c % tiles);
          const int nc = static_cast<int>(s.in_c / tiles + (tile < s.in_c % tiles ? 1 : 0));
          FilterGradUnit(xs[tap], gs[tap], s, tap, c0, nc, dw);
        }
      };
      if (ctx == nullptr) {
        run(0, units);
      } else {
        ctx->ParallelFor(units, cost, run);
      }
    }
    return true;
  }
#endif
  (void)ctx, (void)x, (void)dy, (void)s, (void)a, (void)dw;
  return false;
}

}  // namespace conv
}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_CONV_FILTER_GRAD_AVX512_H_
