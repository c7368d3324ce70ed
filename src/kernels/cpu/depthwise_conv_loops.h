// The loops of DepthwiseConv2dNative and its backprops on NHWC buffers, spread over the
// intra-op pool. Every loop's innermost dimension is the contiguous channel axis (c, or
// c*m + j), so it vectorizes; the window taps are resolved outside it. Each thread owns
// what it writes: output rows (forward), input rows gathered from the output rows that saw
// them (input gradient), or a partial filter gradient per fixed chunk of output rows,
// summed in chunk order afterwards (so the result does not depend on the thread count).
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_DEPTHWISE_CONV_LOOPS_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_DEPTHWISE_CONV_LOOPS_H_

#include <algorithm>
#include <vector>

#include "kernels/op_kernel.h"
#include "ops/conv_geometry.h"

namespace tw {
namespace depthwise {

using conv::Conv2DAttrs;
using conv::Conv2DShape;

// y[c*m + j] += x[c] * f[c*m + j] over c < channels, j < m (the multiply-adds of one tap).
template <typename T>
inline void TapMultiplyAdd(const T* __restrict x, const T* __restrict f, T* __restrict y, int64_t channels, int64_t m) {
  if (m == 1) {
    for (int64_t c = 0; c < channels; ++c) y[c] += x[c] * f[c];
    return;
  }
  for (int64_t c = 0; c < channels; ++c) {
    const T xc = x[c];
    for (int64_t j = 0; j < m; ++j) y[c * m + j] += xc * f[c * m + j];
  }
}

// ~one multiply-add per nanosecond per output channel and tap: sets the split only.
inline int64_t RowCost(const Conv2DShape& s) { return std::max<int64_t>(1, s.out_w * s.k_h * s.k_w * s.out_c); }

// y[n, oy, ox, c*m + j] = sum over taps of x[n, iy, ix, c] * f[ky, kx, c, j].
template <typename T>
void Forward(const OpKernelContext& ctx, const T* x, const T* f, const Conv2DShape& s, const Conv2DAttrs& a,
             int64_t m, T* y) {
  ctx.ParallelFor(s.batch * s.out_h, RowCost(s), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t n = row / s.out_h, oy = row % s.out_h;
      const T* xn = x + n * s.in_h * s.in_w * s.in_c;
      T* yrow = y + row * s.out_w * s.out_c;
      std::fill(yrow, yrow + s.out_w * s.out_c, T(0));
      for (int64_t ky = 0; ky < s.k_h; ++ky) {
        const int64_t iy = oy * a.stride_h - s.pad_top + ky * a.dilation_h;
        if (iy < 0 || iy >= s.in_h) continue;
        for (int64_t ox = 0; ox < s.out_w; ++ox) {
          for (int64_t kx = 0; kx < s.k_w; ++kx) {
            const int64_t ix = ox * a.stride_w - s.pad_left + kx * a.dilation_w;
            if (ix < 0 || ix >= s.in_w) continue;
            TapMultiplyAdd(xn + (iy * s.in_w + ix) * s.in_c, f + (ky * s.k_w + kx) * s.out_c,
                           yrow + ox * s.out_c, s.in_c, m);
          }
        }
      }
    }
  });
}

// The output position o (>= 0) along one axis whose tap k reads input position i, or -1.
inline int64_t SourceOf(int64_t i, int64_t k, int64_t stride, int64_t pad, int64_t dilation, int64_t out_size) {
  const int64_t t = i + pad - k * dilation;
  if (t < 0 || t % stride != 0 || t / stride >= out_size) return -1;
  return t / stride;
}

// dx[n, iy, ix, c] = sum over taps and j of dy[n, oy, ox, c*m + j] * f[ky, kx, c, j], each
// input row gathering from the output rows whose windows cover it.
template <typename T>
void BackpropInput(const OpKernelContext& ctx, const T* dy, const T* f, const Conv2DShape& s, const Conv2DAttrs& a,
                   int64_t m, T* dx) {
  const int64_t cost = std::max<int64_t>(1, s.in_w * s.k_h * s.k_w * s.out_c / std::max<int64_t>(1, a.stride_h * a.stride_w));
  ctx.ParallelFor(s.batch * s.in_h, cost, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t n = row / s.in_h, iy = row % s.in_h;
      const T* dyn = dy + n * s.out_h * s.out_w * s.out_c;
      T* dxrow = dx + row * s.in_w * s.in_c;
      std::fill(dxrow, dxrow + s.in_w * s.in_c, T(0));
      for (int64_t ky = 0; ky < s.k_h; ++ky) {
        const int64_t oy = SourceOf(iy, ky, a.stride_h, s.pad_top, a.dilation_h, s.out_h);
        if (oy < 0) continue;
        for (int64_t ix = 0; ix < s.in_w; ++ix) {
          T* d = dxrow + ix * s.in_c;
          for (int64_t kx = 0; kx < s.k_w; ++kx) {
            const int64_t ox = SourceOf(ix, kx, a.stride_w, s.pad_left, a.dilation_w, s.out_w);
            if (ox < 0) continue;
            const T* g = dyn + (oy * s.out_w + ox) * s.out_c;
            const T* fk = f + (ky * s.k_w + kx) * s.out_c;
            if (m == 1) {
              TapMultiplyAdd(g, fk, d, s.in_c, 1);  // d[c] += g[c] * fk[c]
            } else {
              for (int64_t c = 0; c < s.in_c; ++c) {
                T sum = 0;
                for (int64_t j = 0; j < m; ++j) sum += g[c * m + j] * fk[c * m + j];
                d[c] += sum;
              }
            }
          }
        }
      }
    }
  });
}

// Partial filter gradients: at most this many (each the filter's size), of at least 4
// output rows each; the split depends on the shape alone, not on the threads.
constexpr int64_t kMaxFilterChunks = 256;

// df[ky, kx, c, j] = sum over n, oy, ox of x[n, iy, ix, c] * dy[n, oy, ox, c*m + j].
template <typename T>
void BackpropFilter(const OpKernelContext& ctx, const T* x, const T* dy, const Conv2DShape& s, const Conv2DAttrs& a,
                    int64_t m, T* df) {
  const int64_t rows = s.batch * s.out_h, taps = s.k_h * s.k_w * s.out_c;
  const int64_t chunk_rows = std::max<int64_t>(4, (rows + kMaxFilterChunks - 1) / kMaxFilterChunks);
  const int64_t chunks = (rows + chunk_rows - 1) / chunk_rows;
  std::vector<T> partial(static_cast<size_t>(chunks * taps), T(0));
  ctx.ParallelFor(chunks, RowCost(s) * chunk_rows, [&](int64_t begin, int64_t end) {
    for (int64_t chunk = begin; chunk < end; ++chunk) {
      T* p = partial.data() + chunk * taps;
      for (int64_t row = chunk * chunk_rows; row < std::min(rows, (chunk + 1) * chunk_rows); ++row) {
        const int64_t n = row / s.out_h, oy = row % s.out_h;
        const T* xn = x + n * s.in_h * s.in_w * s.in_c;
        const T* dyrow = dy + row * s.out_w * s.out_c;
        for (int64_t ky = 0; ky < s.k_h; ++ky) {
          const int64_t iy = oy * a.stride_h - s.pad_top + ky * a.dilation_h;
          if (iy < 0 || iy >= s.in_h) continue;
          for (int64_t ox = 0; ox < s.out_w; ++ox) {
            for (int64_t kx = 0; kx < s.k_w; ++kx) {
              const int64_t ix = ox * a.stride_w - s.pad_left + kx * a.dilation_w;
              if (ix < 0 || ix >= s.in_w) continue;
              // p[tap][c*m + j] += x[c] * dy[c*m + j]: the forward's multiply-add, roles swapped.
              TapMultiplyAdd(xn + (iy * s.in_w + ix) * s.in_c, dyrow + ox * s.out_c,
                             p + (ky * s.k_w + kx) * s.out_c, s.in_c, m);
            }
          }
        }
      }
    }
  });
  // The chunks' sums, in chunk order, split over the filter's elements.
  ctx.ParallelFor(taps, chunks, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      T sum = 0;
      for (int64_t chunk = 0; chunk < chunks; ++chunk) sum += partial[chunk * taps + i];
      df[i] = sum;
    }
  });
}

}  // namespace depthwise
}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_DEPTHWISE_CONV_LOOPS_H_
