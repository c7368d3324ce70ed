// Reductions over a set of axes (Sum, Mean, Max, Min, Prod) and ArgMax/ArgMin.
//
// After dropping size-1 dims and merging neighbouring dims that are both reduced or both
// kept, most reductions become [outer, reduce, inner] and take a fast contiguous path;
// anything else (e.g. reduce axes 0 and 2 of a rank-3 tensor) takes a strided loop.

// GCC 12 warns falsely inside its own AVX-512 intrinsics as Eigen inlines them (GCC bug
// 105593); set before any include so the system headers see it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "kernels/cpu/complex_factory.h"
#include "kernels/cpu/cpu_kernels.h"
#include "tensor/tensor_eigen.h"
#include "ops/reduction_axes.h"

namespace tw {
namespace {


// Rough cost of visiting one element, in ns, for ParallelFor.
constexpr int64_t kCostPerElement = 1;
// Inner slices are processed in blocks this long so the accumulators stay in L1.
constexpr int64_t kInnerBlock = 1024;
// Full reductions are split into chunks this long, reduced in parallel, then combined.
constexpr int64_t kFullChunk = 32768;

// Each reducer: Init() (the value for an empty set), Combine(a, b), ReduceRow(p, n)
// for a contiguous row with n > 0, and Accumulate(acc, p, n): acc[i] = Combine(acc[i], p[i]).
template <typename T>
struct SumReducer {
  static T Init() { return T(0); }
  static T Combine(T a, T b) { return a + b; }
  static T ReduceRow(const T* p, int64_t n) { return ConstArrayMap<T>(p, n).sum(); }
  static void Accumulate(T* acc, const T* p, int64_t n) {
    ArrayMap<T>(acc, n) += ConstArrayMap<T>(p, n);
  }
};

template <typename T>
struct ProdReducer {
  static T Init() { return T(1); }
  static T Combine(T a, T b) { return a * b; }
  static T ReduceRow(const T* p, int64_t n) { return ConstArrayMap<T>(p, n).prod(); }
  static void Accumulate(T* acc, const T* p, int64_t n) {
    ArrayMap<T>(acc, n) *= ConstArrayMap<T>(p, n);
  }
};

// Max (Min) of a contiguous float row, NaN if the row holds one, at the speed of a plain max:
// eight independent accumulators keep enough loads in flight, and a mask beside them stays
// all ones while every x == x (false only for NaN). Eigen's maxCoeff<PropagateNaN> selects per packet
// and ran at half NumPy's speed on 16M floats (bench/numpy_ops.sh).
template <typename T, bool kIsMax>
T PropagatingExtremum(const T* p, int64_t n) {
  using namespace Eigen::internal;
  using Packet = typename packet_traits<T>::type;
  constexpr int64_t kWidth = unpacket_traits<Packet>::size;
  constexpr int kLanes = 8;
  constexpr int64_t kStep = kLanes * kWidth;
  ConstArrayMap<T> all(p, n);
  if (n < 2 * kStep) {
    return kIsMax ? all.template maxCoeff<Eigen::PropagateNaN>()
                  : all.template minCoeff<Eigen::PropagateNaN>();
  }
  Packet best[kLanes], ordered[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    best[l] = ploadu<Packet>(p + l * kWidth);
    ordered[l] = pcmp_eq(best[l], best[l]);
  }
  int64_t i = kStep;
  for (; i + kStep <= n; i += kStep) {
    for (int l = 0; l < kLanes; ++l) {
      const Packet x = ploadu<Packet>(p + i + l * kWidth);
      best[l] = kIsMax ? pmax(best[l], x) : pmin(best[l], x);
      ordered[l] = pand(ordered[l], pcmp_eq(x, x));
    }
  }
  for (int l = 1; l < kLanes; ++l) {
    best[0] = kIsMax ? pmax(best[0], best[l]) : pmin(best[0], best[l]);
    ordered[0] = pand(ordered[0], ordered[l]);
  }
  if (predux_any(pandnot(ptrue(ordered[0]), ordered[0]))) {
    return std::numeric_limits<T>::quiet_NaN();
  }
  T result = kIsMax ? predux_max(best[0]) : predux_min(best[0]);
  if (i < n) {
    ConstArrayMap<T> tail(p + i, n - i);
    const T rest = kIsMax ? tail.template maxCoeff<Eigen::PropagateNaN>()
                          : tail.template minCoeff<Eigen::PropagateNaN>();
    if (std::isnan(rest)) return rest;
    result = kIsMax ? std::max(result, rest) : std::min(result, rest);
  }
  return result;
}

// Max and Min propagate NaN (any NaN in the set gives NaN), as NumPy does.
template <typename T, bool kIsMax>
struct ExtremumReducer {
  static T Init() {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return kIsMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    } else {
      return kIsMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    }
  }
  static T Combine(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return kIsMax ? std::max(a, b) : std::min(a, b);
  }
  static T ReduceRow(const T* p, int64_t n) {
    ConstArrayMap<T> row(p, n);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      return PropagatingExtremum<T, kIsMax>(p, n);
    } else if constexpr (std::is_floating_point_v<T>) {
      return kIsMax ? row.template maxCoeff<Eigen::PropagateNaN>()
                    : row.template minCoeff<Eigen::PropagateNaN>();
    } else {
      return kIsMax ? row.maxCoeff() : row.minCoeff();
    }
  }
  static void Accumulate(T* acc, const T* p, int64_t n) {
    ArrayMap<T> a(acc, n);
    ConstArrayMap<T> b(p, n);
    if constexpr (std::is_floating_point_v<T>) {
      if constexpr (kIsMax) {
        a = a.binaryExpr(b, Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>());
      } else {
        a = a.binaryExpr(b, Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>());
      }
    } else if constexpr (kIsMax) {
      a = a.max(b);
    } else {
      a = a.min(b);
    }
  }
};

// Logical and/or of bools (All, Any): all() of an empty set is true, any() false.
template <bool kAll>
struct LogicalReducer {
  static bool Init() { return kAll; }
  static bool Combine(bool a, bool b) { return kAll ? (a && b) : (a || b); }
  static bool ReduceRow(const bool* p, int64_t n) {
    return kAll ? ConstArrayMap<bool>(p, n).all() : ConstArrayMap<bool>(p, n).any();
  }
  static void Accumulate(bool* acc, const bool* p, int64_t n) {
    for (int64_t i = 0; i < n; ++i) acc[i] = Combine(acc[i], p[i]);
  }
};
template <typename T>
using AllReducer = LogicalReducer<true>;
template <typename T>
using AnyReducer = LogicalReducer<false>;

template <typename T>
using MaxReducer = ExtremumReducer<T, true>;
template <typename T>
using MinReducer = ExtremumReducer<T, false>;

// [outer, n, inner] -> [outer, inner], with n > 0.
template <typename T, typename R>
void Reduce3D(const OpKernelContext& ctx, const T* in, T* out, int64_t outer, int64_t n,
              int64_t inner) {
  if (inner == 1 && outer == 1) {
    const int64_t chunks = (n + kFullChunk - 1) / kFullChunk;
    // Not std::vector: vector<bool> packs bits, which threads must not write side by side.
    std::unique_ptr<T[]> partial(new T[chunks]);
    ctx.ParallelFor(chunks, kFullChunk * kCostPerElement, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        const int64_t start = c * kFullChunk;
        partial[c] = R::ReduceRow(in + start, std::min(kFullChunk, n - start));
      }
    });
    T acc = partial[0];  // Combined in a fixed order, so results do not depend on threads.
    for (int64_t c = 1; c < chunks; ++c) acc = R::Combine(acc, partial[c]);
    *out = acc;
    return;
  }
  if (inner == 1) {
    ctx.ParallelFor(outer, n * kCostPerElement, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) out[o] = R::ReduceRow(in + o * n, n);
    });
    return;
  }
  const int64_t blocks = (inner + kInnerBlock - 1) / kInnerBlock;
  if (outer == 1 && blocks == 1 && n * inner > kFullChunk) {
    // Many short rows (e.g. a column sum of [batch, features]): chunks of rows are reduced
    // into partial rows in parallel, then combined in a fixed order.
    const int64_t rows_per_chunk = std::max<int64_t>(1, kFullChunk / inner);
    const int64_t chunks = (n + rows_per_chunk - 1) / rows_per_chunk;
    std::unique_ptr<T[]> partial(new T[chunks * inner]);
    ctx.ParallelFor(
        chunks, rows_per_chunk * inner * kCostPerElement, [&](int64_t begin, int64_t end) {
          for (int64_t c = begin; c < end; ++c) {
            T* acc = partial.get() + c * inner;
            const int64_t first = c * rows_per_chunk, last = std::min(n, first + rows_per_chunk);
            std::copy(in + first * inner, in + (first + 1) * inner, acc);
            for (int64_t r = first + 1; r < last; ++r) R::Accumulate(acc, in + r * inner, inner);
          }
        });
    std::copy(partial.get(), partial.get() + inner, out);
    for (int64_t c = 1; c < chunks; ++c) R::Accumulate(out, partial.get() + c * inner, inner);
    return;
  }
  // Rows of `inner` are accumulated one after another; work units are (outer, inner block)
  // pairs so that even outer == 1 splits across threads.
  const int64_t block_len = std::min(inner, kInnerBlock);
  ctx.ParallelFor(outer * blocks, n * block_len * kCostPerElement, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t o = u / blocks, start = (u % blocks) * kInnerBlock;
      const int64_t len = std::min(kInnerBlock, inner - start);
      T* acc = out + o * inner + start;
      const T* src = in + o * n * inner + start;
      std::copy(src, src + len, acc);
      for (int64_t r = 1; r < n; ++r) R::Accumulate(acc, src + r * inner, len);
    }
  });
}

// Any pattern of reduced/kept dims (already collapsed, no size-1 dims, at least one kept).
// Work is split over the first kept dim, whose slices write disjoint parts of the output.
template <typename T, typename R>
void ReduceStrided(const OpKernelContext& ctx, const T* in, T* out, const DimVector& dims,
                   const std::vector<bool>& reduced) {
  const int nd = static_cast<int>(dims.size());
  DimVector in_stride(nd), out_stride(nd, 0);
  int64_t s = 1, os = 1;
  for (int d = nd - 1; d >= 0; --d) {
    in_stride[d] = s;
    s *= dims[d];
    if (!reduced[d]) {
      out_stride[d] = os;
      os *= dims[d];
    }
  }
  const int split =
      static_cast<int>(std::find(reduced.begin(), reduced.end(), false) - reduced.begin());
  const int last = nd - 1;
  const int64_t len = dims[last];
  std::fill(out, out + os, R::Init());
  const int64_t per_slice = s / dims[split];
  ctx.ParallelFor(dims[split], per_slice * kCostPerElement, [&](int64_t begin, int64_t end) {
    DimVector idx(nd, 0);
    for (int64_t k = begin; k < end; ++k) {
      std::fill(idx.begin(), idx.end(), 0);
      idx[split] = k;
      while (true) {
        int64_t ioff = 0, ooff = 0;
        for (int d = 0; d < last; ++d) {
          ioff += idx[d] * in_stride[d];
          ooff += idx[d] * out_stride[d];
        }
        if (reduced[last]) {
          out[ooff] = R::Combine(out[ooff], R::ReduceRow(in + ioff, len));
        } else {
          R::Accumulate(out + ooff, in + ioff, len);
        }
        // Odometer over every dim but `split` and `last`.
        int d = last - 1;
        for (; d >= 0; --d) {
          if (d == split) continue;
          if (++idx[d] < dims[d]) break;
          idx[d] = 0;
        }
        if (d < 0) break;
      }
    }
  });
}

std::vector<int64_t> ReadIntVector(const Tensor& t) {
  std::vector<int64_t> v;
  if (t.dtype() == DType::kInt32) {
    for (int32_t x : t.flat<int32_t>()) v.push_back(x);
  } else {
    for (int64_t x : t.flat<int64_t>()) v.push_back(x);
  }
  return v;
}

template <typename T, template <typename> class Reducer, bool kMean>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("keep_dims", &keep_dims_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    using R = Reducer<T>;
    const Tensor& in = ctx.input(0);
    const Tensor& axes_t = ctx.input(1);
    if (axes_t.rank() > 1) {
      return absl::InvalidArgumentError(
          "reduction_indices must be a scalar or a vector, got shape " +
          axes_t.shape().DebugString());
    }
    const int rank = in.rank();
    std::vector<bool> reduced;
    TW_RETURN_IF_ERROR(MarkReducedAxes(ReadIntVector(axes_t), rank, &reduced));
    TensorShape out_shape;
    int64_t count = 1;  // Elements reduced into each output.
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        out_shape.AddDim(in.dim(d));
      } else {
        count *= in.dim(d);
        if (keep_dims_) out_shape.AddDim(1);
      }
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_shape, in.dtype()));
    const int64_t n_out = out->NumElements();
    if (n_out == 0) return absl::OkStatus();
    T* dst = out->data<T>();
    if (count == 0) {
      T empty = R::Init();
      if constexpr (kMean) {
        // 0/0: NaN for floats as NumPy; integers have no NaN, so 0.
        if constexpr (kIsComplex<T>) {
          const auto nan = std::numeric_limits<typename T::value_type>::quiet_NaN();
          empty = T(nan, nan);
        } else {
          empty = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(0);
        }
      }
      std::fill(dst, dst + n_out, empty);
      return absl::OkStatus();
    }
    // Collapse: drop size-1 dims, merge neighbours with the same role.
    DimVector dims;
    std::vector<bool> red;
    for (int d = 0; d < rank; ++d) {
      if (in.dim(d) == 1) continue;
      if (!dims.empty() && red.back() == reduced[d]) {
        dims.back() *= in.dim(d);
      } else {
        dims.push_back(in.dim(d));
        red.push_back(reduced[d]);
      }
    }
    const T* src = in.data<T>();
    const int nd = static_cast<int>(dims.size());
    if (count == 1) {
      std::copy(src, src + n_out, dst);
    } else if (nd == 1) {
      Reduce3D<T, R>(ctx, src, dst, 1, dims[0], 1);
    } else if (nd == 2) {
      if (red[0]) {
        Reduce3D<T, R>(ctx, src, dst, 1, dims[0], dims[1]);
      } else {
        Reduce3D<T, R>(ctx, src, dst, dims[0], dims[1], 1);
      }
    } else if (nd == 3 && red[1]) {
      Reduce3D<T, R>(ctx, src, dst, dims[0], dims[1], dims[2]);
    } else {
      ReduceStrided<T, R>(ctx, src, dst, dims, red);
    }
    if constexpr (kMean) {
      if (count > 1) {
        for (int64_t i = 0; i < n_out; ++i) {
          if constexpr (std::is_integral_v<T>) {
            dst[i] = static_cast<T>(static_cast<int64_t>(dst[i]) / count);
          } else {
            dst[i] = dst[i] / static_cast<T>(count);
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  bool keep_dims_ = false;
};

template <typename T>
using SumOp = ReductionOp<T, SumReducer, false>;
template <typename T>
using MeanOp = ReductionOp<T, SumReducer, true>;
template <typename T>
using ProdOp = ReductionOp<T, ProdReducer, false>;
template <typename T>
using MaxOp = ReductionOp<T, MaxReducer, false>;
template <typename T>
using MinOp = ReductionOp<T, MinReducer, false>;

// Index of the first maximum (minimum) along one axis; a NaN wins over numbers, as in NumPy.
template <typename T, bool kIsMax>
class ArgReductionOp : public OpKernel {
 public:
  explicit ArgReductionOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("output_type", &output_type_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const Tensor& axis_t = ctx.input(1);
    if (axis_t.rank() != 0) {
      return absl::InvalidArgumentError("dimension must be a scalar, got shape " +
                                        axis_t.shape().DebugString());
    }
    if (in.rank() == 0) {
      return absl::InvalidArgumentError("input must have rank at least 1, got a scalar");
    }
    TW_ASSIGN_OR_RETURN(int axis, NormalizeArgAxis(ReadIntVector(axis_t)[0], in.rank()));
    const int64_t n = in.dim(axis);
    if (n == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Reduction axis ", axis, " is empty in shape ", in.shape().DebugString()));
    }
    if (output_type_ == DType::kInt32 && n > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", axis, " of size ", n, " does not fit output_type int32"));
    }
    TensorShape out_shape = in.shape();
    out_shape.RemoveDim(axis);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_shape, output_type_));
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= in.dim(d);
    for (int d = axis + 1; d < in.rank(); ++d) inner *= in.dim(d);
    if (output_type_ == DType::kInt32) {
      Run(ctx, in.data<T>(), out->data<int32_t>(), outer, n, inner);
    } else {
      Run(ctx, in.data<T>(), out->data<int64_t>(), outer, n, inner);
    }
    return absl::OkStatus();
  }

 private:
  static bool Better(T v, T best) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(best)) return false;
      if (std::isnan(v)) return true;
    }
    return kIsMax ? v > best : v < best;
  }

  template <typename Index>
  static void Run(const OpKernelContext& ctx, const T* in, Index* out, int64_t outer, int64_t n,
                  int64_t inner) {
    const int64_t blocks = (inner + kInnerBlock - 1) / kInnerBlock;
    const int64_t block_len = std::min(inner, kInnerBlock);
    ctx.ParallelFor(outer * blocks, n * block_len * kCostPerElement,
                    [&](int64_t begin, int64_t end) {
                      std::vector<T> best(block_len);
                      for (int64_t u = begin; u < end; ++u) {
                        const int64_t o = u / blocks, start = (u % blocks) * kInnerBlock;
                        const int64_t len = std::min(kInnerBlock, inner - start);
                        const T* src = in + o * n * inner + start;
                        Index* idx = out + o * inner + start;
                        std::copy(src, src + len, best.begin());
                        std::fill(idx, idx + len, Index(0));
                        for (int64_t r = 1; r < n; ++r) {
                          const T* row = src + r * inner;
                          for (int64_t i = 0; i < len; ++i) {
                            if (Better(row[i], best[i])) {
                              best[i] = row[i];
                              idx[i] = static_cast<Index>(r);
                            }
                          }
                        }
                      }
                    });
  }

  DType output_type_ = DType::kInt64;
};

template <typename T>
using ArgMaxOp = ArgReductionOp<T, true>;
template <typename T>
using ArgMinOp = ArgReductionOp<T, false>;

const std::vector<DType> kNumericTypes = {DType::kFloat, DType::kDouble, DType::kInt32,
                                          DType::kInt64};

}  // namespace

void RegisterReductionKernels(KernelRegistry& r) {
  r.Register({"Sum", kDeviceCpu, TypedFactory<SumOp>(), "T", kNumericTypes});
  r.Register({"Mean", kDeviceCpu, TypedFactory<MeanOp>(), "T", kNumericTypes});
  r.Register({"Prod", kDeviceCpu, TypedFactory<ProdOp>(), "T", kNumericTypes});
  // Sum, Mean and Prod also take complex64/128, as TensorFlow's.
  r.Register({"Sum", kDeviceCpu, ComplexTypedFactory<SumOp>(), "T", ComplexTypes()});
  r.Register({"Mean", kDeviceCpu, ComplexTypedFactory<MeanOp>(), "T", ComplexTypes()});
  r.Register({"Prod", kDeviceCpu, ComplexTypedFactory<ProdOp>(), "T", ComplexTypes()});
  r.Register({"Max", kDeviceCpu, TypedFactory<MaxOp>(), "T", kNumericTypes});
  r.Register({"Min", kDeviceCpu, TypedFactory<MinOp>(), "T", kNumericTypes});
  r.Register("All", kDeviceCpu, Factory<ReductionOp<bool, AllReducer, false>>());
  r.Register("Any", kDeviceCpu, Factory<ReductionOp<bool, AnyReducer, false>>());
  r.Register({"ArgMax", kDeviceCpu, TypedFactory<ArgMaxOp>(), "T", kNumericTypes});
  r.Register({"ArgMin", kDeviceCpu, TypedFactory<ArgMinOp>(), "T", kNumericTypes});
}

}  // namespace tw
