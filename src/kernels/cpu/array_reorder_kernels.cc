// ReverseV2, Roll, InvertPermutation and MatrixBandPart. Reverse and Roll see the tensor
// as [outer, n, inner] around each axis they move along and move whole inner blocks, one
// pass per axis, so every pass is a run of contiguous copies.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/cwise.h"

namespace tw {
namespace {

// The values of an int32/int64 scalar or vector tensor.
std::vector<int64_t> IntValues(const Tensor& t) {
  std::vector<int64_t> out(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out[i] = t.dtype() == DType::kInt64 ? t.data<int64_t>()[i] : t.data<int32_t>()[i];
  }
  return out;
}

struct AxisView {
  int64_t outer = 1, n = 1, inner = 1;
};

AxisView ViewAround(const TensorShape& shape, int axis) {
  AxisView v;
  for (int d = 0; d < axis; ++d) v.outer *= shape.dim(d);
  v.n = shape.dim(axis);
  for (int d = axis + 1; d < shape.rank(); ++d) v.inner *= shape.dim(d);
  return v;
}

template <typename T>
class ReverseV2Op : public OpKernel {
 public:
  explicit ReverseV2Op(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& axis_t = ctx.input(1);
    if (axis_t.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("'axis' must be 1-D, not ", axis_t.shape().DebugString()));
    }
    const int rank = x.rank();
    std::vector<bool> reversed(rank, false);
    const std::vector<int64_t> axes = IntValues(axis_t);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (a < 0 || a >= rank) {
        return absl::InvalidArgumentError(absl::StrCat("'axis'[", i, "] = ", axes[i],
                                                       " is out of valid range [0, ", rank - 1, "]"));
      }
      if (reversed[a]) {
        return absl::InvalidArgumentError(absl::StrCat("axis ", a, " specified more than once."));
      }
      reversed[a] = true;
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), x.dtype()));
    const int64_t size = x.NumElements();
    T* dst = out->data<T>();
    std::copy(x.data<T>(), x.data<T>() + size, dst);
    if (size == 0) return absl::OkStatus();
    for (int a = 0; a < rank; ++a) {
      if (!reversed[a]) continue;
      const AxisView v = ViewAround(x.shape(), a);
      for (int64_t o = 0; o < v.outer; ++o) {
        T* base = dst + o * v.n * v.inner;
        for (int64_t j = 0; j < v.n / 2; ++j) {
          std::swap_ranges(base + j * v.inner, base + (j + 1) * v.inner, base + (v.n - 1 - j) * v.inner);
        }
      }
    }
    return absl::OkStatus();
  }
};

template <typename T>
class RollOp : public OpKernel {
 public:
  explicit RollOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& shift_t = ctx.input(1);
    const Tensor& axis_t = ctx.input(2);
    if (x.rank() < 1) return absl::InvalidArgumentError("input must be 1-D or higher");
    if (shift_t.rank() > 1) return absl::InvalidArgumentError("shift must be a scalar or a 1-D vector.");
    if (axis_t.rank() > 1) return absl::InvalidArgumentError("axis must be a scalar or a 1-D vector.");
    if (shift_t.NumElements() != axis_t.NumElements()) {
      return absl::InvalidArgumentError(
          absl::StrCat("shift and axis must have the same size. Found shift of ", shift_t.NumElements(),
                       " elements and axis of ", axis_t.NumElements(), " elements."));
    }
    const int rank = x.rank();
    const std::vector<int64_t> shifts = IntValues(shift_t), axes = IntValues(axis_t);
    // Shifts along one axis add up, as in TensorFlow.
    std::vector<int64_t> total(rank, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (a < 0 || a >= rank) {
        return absl::InvalidArgumentError(absl::StrCat("axis ", axes[i], " is out of range"));
      }
      total[a] += shifts[i];
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), x.dtype()));
    const int64_t size = x.NumElements();
    // Plain arrays: std::vector<bool> has no data().
    std::unique_ptr<T[]> scratch(new T[size]), next(new T[size]);
    std::copy(x.data<T>(), x.data<T>() + size, scratch.get());
    for (int a = 0; a < rank && size > 0; ++a) {
      const AxisView v = ViewAround(x.shape(), a);
      const int64_t s = ((total[a] % v.n) + v.n) % v.n;
      if (s == 0) continue;
      for (int64_t o = 0; o < v.outer; ++o) {
        const T* src = scratch.get() + o * v.n * v.inner;
        T* dst = next.get() + o * v.n * v.inner;
        // Element j moves to (j + s) mod n: two contiguous runs.
        std::copy(src, src + (v.n - s) * v.inner, dst + s * v.inner);
        std::copy(src + (v.n - s) * v.inner, src + v.n * v.inner, dst);
      }
      scratch.swap(next);
    }
    std::copy(scratch.get(), scratch.get() + size, out->data<T>());
    return absl::OkStatus();
  }
};

template <typename T>
class InvertPermutationOp : public OpKernel {
 public:
  explicit InvertPermutationOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("invert_permutation expects a 1D vector, not ", x.shape().DebugString()));
    }
    const int64_t n = x.NumElements();
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), x.dtype()));
    const T* p = x.data<T>();
    T* y = out->data<T>();
    std::fill(y, y + n, T{-1});
    for (int64_t i = 0; i < n; ++i) {
      const int64_t d = static_cast<int64_t>(p[i]);
      if (d < 0 || d >= n) {
        return absl::InvalidArgumentError(absl::StrCat(d, " is not between 0 and ", n));
      }
      if (y[d] != T{-1}) return absl::InvalidArgumentError(absl::StrCat(d, " is duplicated in the input."));
      y[d] = static_cast<T>(i);
    }
    return absl::OkStatus();
  }
};

template <typename T>
class MatrixBandPartOp : public OpKernel {
 public:
  explicit MatrixBandPartOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be at least 2-dim, received shape: ", x.shape().DebugString()));
    }
    const int64_t m = x.dim(x.rank() - 2), n = x.dim(x.rank() - 1);
    int64_t bounds[2];
    const char* names[2] = {"num_lower", "num_upper"};
    const int64_t limits[2] = {m, n};
    for (int i = 0; i < 2; ++i) {
      const Tensor& t = ctx.input(1 + i);
      if (t.rank() != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(names[i], " must be scalar, got shape ", t.shape().DebugString()));
      }
      bounds[i] = IntValues(t)[0];
      if (bounds[i] > limits[i]) {
        return absl::InvalidArgumentError(absl::StrCat(names[i], " must be negative or less or equal to number of ",
                                                       i == 0 ? "rows (" : "columns (", limits[i],
                                                       ") got: ", bounds[i]));
      }
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), x.dtype()));
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    const int64_t batches = m * n == 0 ? 0 : x.NumElements() / (m * n);
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          const int64_t k = (b * m + i) * n + j;
          const bool in_band = (bounds[0] < 0 || i - j <= bounds[0]) && (bounds[1] < 0 || j - i <= bounds[1]);
          dst[k] = in_band ? src[k] : T{};
        }
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterArrayReorderKernels(KernelRegistry& r) {
  const auto types = cwise::SupportedDTypes<cwise::NumericOrBoolTypes>();
  constexpr auto kWithBool = KernelTypes::kNumericAndBool;
  r.Register({"ReverseV2", kDeviceCpu, TypedFactory<ReverseV2Op, kWithBool>(), "T", types});
  r.Register({"Roll", kDeviceCpu, TypedFactory<RollOp, kWithBool>(), "T", types});
  r.Register({"MatrixBandPart", kDeviceCpu, TypedFactory<MatrixBandPartOp, kWithBool>(), "T", types});
  r.Register({"InvertPermutation", kDeviceCpu, TypedFactory<InvertPermutationOp>(), "T",
              {DType::kInt32, DType::kInt64}});
}

}  // namespace tw
