// Conv2D's forward on NHWC buffers: patches (im2col) of a block of output positions at a
// time, multiplied by the filter seen as a [kh*kw*c, oc] matrix, with blocks spread over
// the intra-op pool. A block's patches are sized to stay in the core's L2 cache between
// being written and being read by the GEMM, unlike whole-image patches (9x the image for
// a 3x3 filter) that went out to memory and back and were written by one thread. A 1x1
// filter with unit strides and no padding needs no patches: the input is the matrix.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_CONV_FORWARD_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_CONV_FORWARD_H_

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/conv_direct_avx512.h"
#include "kernels/cpu/gemm.h"
#include "ops/conv_geometry.h"

namespace tw {
namespace conv {

// Patch bytes per block: well inside a 1-2 MiB L2 with room for the filter's packed panel.
constexpr int64_t kPatchBlockBytes = 384 * 1024;

// Patches of output positions [first, first + count) of the whole batch (position q is
// image q / (out_h * out_w), pixel q % (out_h * out_w)); row r of col holds position
// first + r, (ky, kx, channel) fastest last; taps in the padding are 0.
template <typename T>
void Im2ColPositions(const T* input, const Conv2DShape& s, const Conv2DAttrs& a, int64_t first, int64_t count,
                     T* col) {
  const int64_t k = s.k_h * s.k_w * s.in_c, per_image = s.out_h * s.out_w;
  for (int64_t r = 0; r < count; ++r) {
    const int64_t q = first + r, n = q / per_image, pix = q % per_image;
    const int64_t oy = pix / s.out_w, ox = pix % s.out_w;
    const T* image = input + n * s.in_h * s.in_w * s.in_c;
    T* row = col + r * k;
    for (int64_t ky = 0; ky < s.k_h; ++ky) {
      const int64_t iy = oy * a.stride_h - s.pad_top + ky * a.dilation_h;
      T* dst = row + ky * s.k_w * s.in_c;
      if (iy < 0 || iy >= s.in_h) {
        std::fill(dst, dst + s.k_w * s.in_c, T(0));
        continue;
      }
      const int64_t ix0 = ox * a.stride_w - s.pad_left;
      if (a.dilation_w == 1 && ix0 >= 0 && ix0 + s.k_w <= s.in_w) {
        // The whole window row is inside: one contiguous copy of k_w pixels.
        std::memcpy(dst, image + (iy * s.in_w + ix0) * s.in_c, s.k_w * s.in_c * sizeof(T));
        continue;
      }
      for (int64_t kx = 0; kx < s.k_w; ++kx) {
        const int64_t ix = ix0 + kx * a.dilation_w;
        T* d = dst + kx * s.in_c;
        if (ix < 0 || ix >= s.in_w) {
          std::fill(d, d + s.in_c, T(0));
        } else {
          std::memcpy(d, image + (iy * s.in_w + ix) * s.in_c, s.in_c * sizeof(T));
        }
      }
    }
  }
}

// out[batch * out_h * out_w, oc] = patches(input) * filter[kh * kw * c, oc].
template <typename T>
void Conv2DForward(const OpKernelContext* ctx, const T* input, const T* filter, const Conv2DShape& s,
                   const Conv2DAttrs& a, T* out) {
  const int64_t positions = s.batch * s.out_h * s.out_w, k = s.k_h * s.k_w * s.in_c;
  if (positions == 0 || s.out_c == 0) return;
  if (Conv2DDirect<T>(ctx, input, filter, s, a, out)) return;
  const bool pointwise = s.k_h == 1 && s.k_w == 1 && a.stride_h == 1 && a.stride_w == 1 && s.pad_top == 0 &&
                         s.pad_left == 0 && s.out_h == s.in_h && s.out_w == s.in_w;
  if (pointwise) {
    Gemm<T>(ctx, input, filter, out, positions, k, s.out_c, false, false);
    return;
  }
  const int64_t rows = std::clamp<int64_t>(kPatchBlockBytes / std::max<int64_t>(1, k * sizeof(T)) / 8 * 8, 8, 1024);
  const int64_t blocks = (positions + rows - 1) / rows;
  // ~50 multiply-adds per ns per core for a float GEMM, plus the copy: a rough cost in ns.
  const int64_t cost = std::max<int64_t>(1, rows * k * (s.out_c + 8) / 50);
  auto run = [&](int64_t begin, int64_t end) {
    thread_local std::vector<T> col;
    if (col.size() < static_cast<size_t>(rows * k)) col.resize(rows * k);
    for (int64_t b = begin; b < end; ++b) {
      const int64_t first = b * rows, count = std::min(rows, positions - first);
      Im2ColPositions(input, s, a, first, count, col.data());
      Gemm<T>(nullptr, col.data(), filter, out + first * s.out_c, count, k, s.out_c, false, false);
    }
  };
  if (ctx == nullptr) {
    run(0, blocks);
  } else {
    ctx->ParallelFor(blocks, cost, run);
  }
}

// Conv2DBackpropInput with unit strides and dilations as a forward convolution, so that
// it runs on the direct kernel: dx is dy convolved with the filter flipped in space and
// with its channel axes swapped, dy padded by (k - 1 - pad) before the first row and
// column. False (nothing written) where the direct kernel does not apply.
template <typename T>
bool Conv2DBackpropInputDirect(const OpKernelContext* ctx, const T* dy, const T* filter, const Conv2DShape& s,
                               const Conv2DAttrs& a, T* dx) {
  if (a.stride_h != 1 || a.stride_w != 1 || a.dilation_h != 1 || a.dilation_w != 1) return false;
  if (!DirectConvApplies<T>(s.in_c)) return false;  // dx's channels are the direct kernel's outputs
  Conv2DShape t = s;
  t.in_h = s.out_h, t.in_w = s.out_w, t.in_c = s.out_c;
  t.out_h = s.in_h, t.out_w = s.in_w, t.out_c = s.in_c;
  t.pad_top = s.k_h - 1 - s.pad_top, t.pad_left = s.k_w - 1 - s.pad_left;
  Conv2DAttrs unit;
  // flipped[ky][kx][o][c] = filter[k_h - 1 - ky][k_w - 1 - kx][c][o]
  std::vector<T> flipped(static_cast<size_t>(s.k_h * s.k_w * s.in_c * s.out_c));
  for (int64_t ky = 0; ky < s.k_h; ++ky) {
    for (int64_t kx = 0; kx < s.k_w; ++kx) {
      const T* src = filter + ((s.k_h - 1 - ky) * s.k_w + (s.k_w - 1 - kx)) * s.in_c * s.out_c;
      T* dst = flipped.data() + (ky * s.k_w + kx) * s.out_c * s.in_c;
      for (int64_t c = 0; c < s.in_c; ++c) {
        for (int64_t o = 0; o < s.out_c; ++o) dst[o * s.in_c + c] = src[c * s.out_c + o];
      }
    }
  }
  return Conv2DDirect<T>(ctx, dy, flipped.data(), t, unit, dx);
}

}  // namespace conv
}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_CONV_FORWARD_H_
