// The byte-moving engine of the array kernels: strided copies (slices, transposes, tiles,
// broadcasts), fills, and row joins/splits (concat, pack, split). Work is by element size
// (1, 4 or 8 bytes), never by dtype, to keep the number of instantiations small.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/array_kernels.h"

namespace tw::array_kernels {
namespace {

// Copies n elements of N bytes read `stride` elements apart into contiguous dst.
template <size_t N>
void CopyRow(const char* src, int64_t stride, int64_t n, char* dst) {
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * N);
  } else if (stride == 0) {
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * N, src, N);
  } else {
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * N, src + i * stride * N, N);
  }
}

// Dims [.., A, B] whose strides are [.., 1, sb]: a batch of row-major matrices read in
// column order, i.e. a transpose. Copies them in square tiles so both sides stay in cache.
template <size_t N>
void TransposeTiles(const OpKernelContext& ctx, const DimVector& d, const DimVector& s,
                    const char* src, char* dst) {
  const int r = static_cast<int>(d.size());
  const int64_t a_len = d[r - 2], b_len = d[r - 1], sb = s[r - 1];
  constexpr int64_t kTile = N == 1 ? 64 : 32;
  int64_t outer = 1;
  for (int j = 0; j < r - 2; ++j) outer *= d[j];
  const int64_t a_tiles = (a_len + kTile - 1) / kTile;
  ctx.ParallelFor(outer * a_tiles, kTile * b_len * N / 2 + 50, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t o = u / a_tiles, a0 = (u % a_tiles) * kTile;
      const int64_t a1 = std::min(a_len, a0 + kTile);
      int64_t off = 0;
      for (int64_t j = r - 3, rem = o; j >= 0; --j) {
        off += (rem % d[j]) * s[j];
        rem /= d[j];
      }
      const char* sp = src + off * static_cast<int64_t>(N);
      char* dp = dst + o * a_len * b_len * static_cast<int64_t>(N);
      for (int64_t b0 = 0; b0 < b_len; b0 += kTile) {
        const int64_t b1 = std::min(b_len, b0 + kTile);
        for (int64_t a = a0; a < a1; ++a) {
          for (int64_t b = b0; b < b1; ++b) {
            std::memcpy(dp + (a * b_len + b) * N, sp + (a + b * sb) * static_cast<int64_t>(N), N);
          }
        }
      }
    }
  });
}

// d and s are simplified: no size-1 dims, adjacent dims merged where possible.
template <size_t N>
void StridedCopyN(const OpKernelContext& ctx, const DimVector& d, const DimVector& s,
                  const char* src, char* dst) {
  const int r = static_cast<int>(d.size());
  if (r == 0) {
    std::memcpy(dst, src, N);
    return;
  }
  const int64_t inner = d[r - 1], inner_stride = s[r - 1];
  if (r == 1) {
    ctx.ParallelFor(inner, N / 4 + 1, [&](int64_t begin, int64_t end) {
      CopyRow<N>(src + begin * inner_stride * static_cast<int64_t>(N), inner_stride, end - begin,
                 dst + begin * static_cast<int64_t>(N));
    });
    return;
  }
  if (s[r - 2] == 1 && std::abs(inner_stride) >= 8 && inner >= 8 && d[r - 2] >= 8) {
    TransposeTiles<N>(ctx, d, s, src, dst);
    return;
  }
  int64_t rows = 1;
  for (int j = 0; j < r - 1; ++j) rows *= d[j];
  ctx.ParallelFor(rows, inner * N / 2 + 20, [&](int64_t begin, int64_t end) {
    DimVector idx(r - 1);
    int64_t off = 0;
    for (int64_t j = r - 2, rem = begin; j >= 0; --j) {
      idx[j] = rem % d[j];
      rem /= d[j];
      off += idx[j] * s[j];
    }
    for (int64_t row = begin; row < end; ++row) {
      CopyRow<N>(src + off * static_cast<int64_t>(N), inner_stride, inner,
                 dst + row * inner * static_cast<int64_t>(N));
      for (int j = r - 2; j >= 0; --j) {  // Odometer step to the next row.
        if (++idx[j] < d[j]) {
          off += s[j];
          break;
        }
        off -= s[j] * (d[j] - 1);
        idx[j] = 0;
      }
    }
  });
}

template <size_t N>
void FillN(const OpKernelContext& ctx, const char* value, int64_t n, char* dst) {
  ctx.ParallelFor(n, N / 4 + 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) std::memcpy(dst + i * N, value, N);
  });
}

}  // namespace

std::vector<DType> PodTypes() {
  return {DType::kFloat, DType::kDouble, DType::kInt32, DType::kUint8, DType::kInt16,
          DType::kInt8,  DType::kInt64,  DType::kBool,  DType::kUint16, DType::kHalf,
          DType::kComplex64, DType::kComplex128};
}

void RegisterPod(KernelRegistry& r, const char* op, KernelFactory factory, const char* type_attr) {
  r.Register({op, kDeviceCpu, std::move(factory), type_attr, PodTypes()});
}

DimVector IntValues(const Tensor& t) {
  DimVector out;
  if (t.dtype() == DType::kInt32) {
    for (int32_t v : t.flat<int32_t>()) out.push_back(v);
  } else if (t.dtype() == DType::kInt64) {
    for (int64_t v : t.flat<int64_t>()) out.push_back(v);
  }
  return out;
}

absl::Status CheckVector(const Tensor& t, const char* what) {
  if (t.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a vector, but got shape ", t.shape().DebugString()));
  }
  return absl::OkStatus();
}

absl::Status CheckScalar(const Tensor& t, const char* what) {
  if (t.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a scalar, but got shape ", t.shape().DebugString()));
  }
  return absl::OkStatus();
}

DimVector RowMajorStrides(absl::Span<const int64_t> dims) {
  DimVector strides(dims.size());
  int64_t s = 1;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    strides[i] = s;
    s *= dims[i];
  }
  return strides;
}

array_util::StridedSliceMasks ReadStridedSliceMasks(OpKernelConstruction& c) {
  array_util::StridedSliceMasks masks;
  c.GetAttr("begin_mask", &masks.begin_mask);
  c.GetAttr("end_mask", &masks.end_mask);
  c.GetAttr("ellipsis_mask", &masks.ellipsis_mask);
  c.GetAttr("new_axis_mask", &masks.new_axis_mask);
  c.GetAttr("shrink_axis_mask", &masks.shrink_axis_mask);
  return masks;
}

StridedWindow WindowOf(const array_util::StridedSliceResult& r, absl::Span<const int64_t> full_dims,
                       bool empty) {
  const DimVector full_strides = RowMajorStrides(full_dims);
  StridedWindow w;
  w.strides.assign(full_dims.size(), 0);
  if (empty) return w;
  for (size_t i = 0; i < full_dims.size(); ++i) {
    w.offset += r.begin[i] * full_strides[i];
    // A huge stride only ever takes one element; skip the product that could overflow.
    if (r.processing_dims[i] > 1) w.strides[i] = r.strides[i] * full_strides[i];
  }
  return w;
}

void StridedCopy(const OpKernelContext& ctx, size_t elem_size, absl::Span<const int64_t> dims,
                 absl::Span<const int64_t> strides, const void* src, void* dst) {
  DimVector d, s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) return;
    if (dims[i] == 1) continue;
    if (!d.empty() && s.back() == strides[i] * dims[i]) {  // Outer dim steps over the inner.
      d.back() *= dims[i];
      s.back() = strides[i];
    } else {
      d.push_back(dims[i]);
      s.push_back(strides[i]);
    }
  }
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  switch (elem_size) {
    case 1: return StridedCopyN<1>(ctx, d, s, from, to);
    case 4: return StridedCopyN<4>(ctx, d, s, from, to);
    case 8: return StridedCopyN<8>(ctx, d, s, from, to);
    default:  // View other sizes as bytes: one more dim over the element's bytes.
      for (int64_t& x : s) x *= static_cast<int64_t>(elem_size);
      d.push_back(static_cast<int64_t>(elem_size));
      s.push_back(1);
      return StridedCopyN<1>(ctx, d, s, from, to);
  }
}

void FillElements(const OpKernelContext& ctx, size_t elem_size, const void* value, int64_t n,
                  void* dst) {
  const char* v = static_cast<const char*>(value);
  char* to = static_cast<char*>(dst);
  if (n <= 0) return;
  if (std::all_of(v, v + elem_size, [&](char c) { return c == v[0]; })) {
    ctx.ParallelFor(n, elem_size / 4 + 1, [&](int64_t begin, int64_t end) {
      std::memset(to + begin * elem_size, v[0], (end - begin) * elem_size);
    });
    return;
  }
  switch (elem_size) {
    case 4: return FillN<4>(ctx, v, n, to);
    case 8: return FillN<8>(ctx, v, n, to);
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(to + i * elem_size, v, elem_size);
  }
}

void JoinRows(const OpKernelContext& ctx, int64_t outer, absl::Span<const char* const> ptrs,
              absl::Span<const int64_t> bytes, char* dst) {
  int64_t row = 0;
  for (int64_t b : bytes) row += b;
  if (row == 0) return;
  ctx.ParallelFor(outer, row / 8 + 20, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      char* d = dst + r * row;
      for (size_t i = 0; i < ptrs.size(); ++i) {
        if (bytes[i] > 0) std::memcpy(d, ptrs[i] + r * bytes[i], bytes[i]);
        d += bytes[i];
      }
    }
  });
}

void SplitRows(const OpKernelContext& ctx, int64_t outer, const char* src,
               absl::Span<char* const> ptrs, absl::Span<const int64_t> bytes) {
  int64_t row = 0;
  for (int64_t b : bytes) row += b;
  if (row == 0) return;
  ctx.ParallelFor(outer, row / 8 + 20, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const char* s = src + r * row;
      for (size_t i = 0; i < ptrs.size(); ++i) {
        if (bytes[i] > 0) std::memcpy(ptrs[i] + r * bytes[i], s, bytes[i]);
        s += bytes[i];
      }
    }
  });
}

}  // namespace tw::array_kernels
