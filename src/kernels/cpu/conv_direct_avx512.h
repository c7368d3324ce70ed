// A direct float32 Conv2D forward for NHWC with AVX-512, for output channels in multiples
// of 16: each step keeps a tile of up to 6 output pixels x 64 output channels in 24 vector
// registers while it runs over every tap and input channel (one broadcast input value times
// four filter vectors per channel), so the output is written once, nothing is copied into
// patches, and the multiply-adds, not memory, set the pace. Taps that fall in the padding
// read a row of zeros instead of branching. Rows of output (batch x height) are spread
// over the intra-op pool. Built only where the compiler targets AVX-512 (-march=native on
// such a machine); elsewhere Conv2DDirect declines and the im2col GEMM runs.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_CONV_DIRECT_AVX512_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_CONV_DIRECT_AVX512_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "kernels/op_kernel.h"
#include "ops/conv_geometry.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tw {
namespace conv {

#if defined(__AVX512F__)

// out[p][16v + l] for NP pixels and NV 16-channel vectors from oc0: the sum over taps t and
// input channels c of x[p][t][c] * f[t][c][oc0 + 16v + l]. x[p][t] points at the pixel's
// input channels for tap t (a zero row in the padding); f is the filter at oc0.
template <int NP, int NV>
void DirectTile(const float* const* x, int64_t taps, int64_t in_c, const float* f, int64_t tap_stride,
                int64_t out_c, float* out) {
  __m512 acc[NP][NV];
  for (int p = 0; p < NP; ++p) {
    for (int v = 0; v < NV; ++v) acc[p][v] = _mm512_setzero_ps();
  }
  for (int64_t t = 0; t < taps; ++t) {
    const float* ft = f + t * tap_stride;
    const float* xt[NP];
    for (int p = 0; p < NP; ++p) xt[p] = x[p * taps + t];
    for (int64_t c = 0; c < in_c; ++c) {
      __m512 fv[NV];
      for (int v = 0; v < NV; ++v) fv[v] = _mm512_loadu_ps(ft + c * out_c + 16 * v);
      for (int p = 0; p < NP; ++p) {
        const __m512 xb = _mm512_set1_ps(xt[p][c]);
        for (int v = 0; v < NV; ++v) acc[p][v] = _mm512_fmadd_ps(xb, fv[v], acc[p][v]);
      }
    }
  }
  for (int p = 0; p < NP; ++p) {
    for (int v = 0; v < NV; ++v) _mm512_storeu_ps(out + p * out_c + 16 * v, acc[p][v]);
  }
}

template <int NV>
void DirectTileN(int np, const float* const* x, int64_t taps, int64_t in_c, const float* f, int64_t tap_stride,
                 int64_t out_c, float* out) {
  switch (np) {
    case 6: return DirectTile<6, NV>(x, taps, in_c, f, tap_stride, out_c, out);
    case 5: return DirectTile<5, NV>(x, taps, in_c, f, tap_stride, out_c, out);
    case 4: return DirectTile<4, NV>(x, taps, in_c, f, tap_stride, out_c, out);
    case 3: return DirectTile<3, NV>(x, taps, in_c, f, tap_stride, out_c, out);
    case 2: return DirectTile<2, NV>(x, taps, in_c, f, tap_stride, out_c, out);
    default: return DirectTile<1, NV>(x, taps, in_c, f, tap_stride, out_c, out);
  }
}

constexpr int kDirectPixels = 6;

inline void DirectRow(const float* image, const float* filter, const float* zeros, const Conv2DShape& s,
                      const Conv2DAttrs& a, int64_t oy, float* out_row, std::vector<const float*>& rows) {
  // Taps whose input row exists (the others add nothing for this whole output row).
  std::vector<int64_t> kys;
  for (int64_t ky = 0; ky < s.k_h; ++ky) {
    const int64_t iy = oy * a.stride_h - s.pad_top + ky * a.dilation_h;
    if (iy >= 0 && iy < s.in_h) kys.push_back(ky);
  }
  const int64_t taps = static_cast<int64_t>(kys.size()) * s.k_w;
  if (taps == 0) {
    std::fill(out_row, out_row + s.out_w * s.out_c, 0.0f);
    return;
  }
  rows.resize(static_cast<size_t>(kDirectPixels * taps));
  // Tiles of near-equal size (56 pixels: 6 x 6 + 4 x 5, not 9 x 6 + 2): a tile of one or
  // two pixels has too few independent accumulators to hide the multiply-add latency.
  const int64_t tiles = (s.out_w + kDirectPixels - 1) / kDirectPixels;
  for (int64_t tile = 0, ox0 = 0; tile < tiles; ++tile) {
    const int np = static_cast<int>(s.out_w / tiles + (tile < s.out_w % tiles ? 1 : 0));
    for (int p = 0; p < np; ++p) {
      const int64_t ox = ox0 + p;
      int64_t t = 0;
      for (int64_t ky : kys) {
        const int64_t iy = oy * a.stride_h - s.pad_top + ky * a.dilation_h;
        for (int64_t kx = 0; kx < s.k_w; ++kx, ++t) {
          const int64_t ix = ox * a.stride_w - s.pad_left + kx * a.dilation_w;
          rows[p * taps + t] = (ix >= 0 && ix < s.in_w) ? image + (iy * s.in_w + ix) * s.in_c : zeros;
        }
      }
    }
    // The valid ky form one contiguous run (a window's rows in the image are consecutive
    // taps; only its ends can leave the image), so the taps kept are contiguous in the filter.
    const float* f = filter + kys.front() * s.k_w * s.in_c * s.out_c;
    const int64_t tap_stride = s.in_c * s.out_c;
    float* out = out_row + ox0 * s.out_c;
    int64_t oc0 = 0;
    for (; oc0 + 64 <= s.out_c; oc0 += 64) DirectTileN<4>(np, rows.data(), taps, s.in_c, f + oc0, tap_stride, s.out_c, out + oc0);
    const int64_t rest = (s.out_c - oc0) / 16;
    if (rest == 3) DirectTileN<3>(np, rows.data(), taps, s.in_c, f + oc0, tap_stride, s.out_c, out + oc0);
    if (rest == 2) DirectTileN<2>(np, rows.data(), taps, s.in_c, f + oc0, tap_stride, s.out_c, out + oc0);
    if (rest == 1) DirectTileN<1>(np, rows.data(), taps, s.in_c, f + oc0, tap_stride, s.out_c, out + oc0);
    ox0 += np;
  }
}

#endif  // __AVX512F__

// Whether Conv2DDirect runs for this type and output channel count.
template <typename T>
constexpr bool DirectConvApplies(int64_t out_c) {
#if defined(__AVX512F__)
  return std::is_same_v<T, float> && out_c > 0 && out_c % 16 == 0;
#else
  return false;
#endif
}

// Runs the direct kernel when it applies (float32, AVX-512, output channels a multiple of
// 16); false when the caller must use another path.
template <typename T>
bool Conv2DDirect(const OpKernelContext* ctx, const T* input, const T* filter, const Conv2DShape& s,
                  const Conv2DAttrs& a, T* out) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (!DirectConvApplies<T>(s.out_c)) return false;
    const std::vector<float> zeros(static_cast<size_t>(s.in_c), 0.0f);
    const int64_t rows = s.batch * s.out_h;
    const int64_t cost = std::max<int64_t>(1, s.out_w * s.k_h * s.k_w * s.in_c * s.out_c / 32);
    auto run = [&](int64_t begin, int64_t end) {
      std::vector<const float*> taps;
      for (int64_t row = begin; row < end; ++row) {
        const int64_t n = row / s.out_h, oy = row % s.out_h;
        DirectRow(input + n * s.in_h * s.in_w * s.in_c, filter, zeros.data(), s, a, oy,
                  out + row * s.out_w * s.out_c, taps);
      }
    };
    if (ctx == nullptr) {
      run(0, rows);
    } else {
      ctx->ParallelFor(rows, cost, run);
    }
    return true;
  }
#endif
  (void)ctx, (void)input, (void)filter, (void)s, (void)a, (void)out;
  return false;
}

}  // namespace conv
}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_CONV_DIRECT_AVX512_H_
