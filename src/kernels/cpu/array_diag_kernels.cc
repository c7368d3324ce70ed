// Diag, DiagPart, MatrixDiag, MatrixDiagPart, MatrixSetDiag and LinSpace.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/cwise.h"

namespace tw {
namespace {

TensorShape ShapeOf(const std::vector<int64_t>& dims) { return TensorShape(absl::Span<const int64_t>(dims)); }

std::vector<int64_t> DimsOf(const TensorShape& s) {
  return std::vector<int64_t>(s.dims().begin(), s.dims().end());
}

// [D...] -> [D..., D...], zero but for output[i, i] = diagonal[i] (indices flattened).
template <typename T>
class DiagOp : public OpKernel {
 public:
  explicit DiagOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& d = ctx.input(0);
    if (d.rank() == 0) return absl::InvalidArgumentError("Input must be at least rank 1, got 0");
    std::vector<int64_t> dims = DimsOf(d.shape());
    dims.insert(dims.end(), dims.begin(), dims.end());
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, ShapeOf(dims), d.dtype()));
    const int64_t n = d.NumElements();
    T* o = out->data<T>();
    std::fill(o, o + n * n, T{});
    for (int64_t i = 0; i < n; ++i) o[i * n + i] = d.data<T>()[i];
    return absl::OkStatus();
  }
};

template <typename T>
class DiagPartOp : public OpKernel {
 public:
  explicit DiagPartOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const int rank = x.rank();
    if (rank == 0 || rank % 2 != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("The rank of the tensor should be even and positive, got shape ", x.shape().DebugString()));
    }
    const int k = rank / 2;
    for (int i = 0; i < k; ++i) {
      if (x.dim(i) != x.dim(i + k)) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid shape ", x.shape().DebugString(), ": dimensions ",
                                                       i, " and ", i + k, " do not match."));
      }
    }
    const std::vector<int64_t> all = DimsOf(x.shape());
    TW_ASSIGN_OR_RETURN(Tensor * out,
                        ctx.allocate_output(0, ShapeOf(std::vector<int64_t>(all.begin(), all.begin() + k)), x.dtype()));
    const int64_t n = out->NumElements();
    for (int64_t i = 0; i < n; ++i) out->data<T>()[i] = x.data<T>()[i * n + i];
    return absl::OkStatus();
  }
};

// [..., N] -> [..., N, N] with the vectors on the diagonals.
template <typename T>
class MatrixDiagOp : public OpKernel {
 public:
  explicit MatrixDiagOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& d = ctx.input(0);
    if (d.rank() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be at least 1-dim, received shape: ", d.shape().DebugString()));
    }
    std::vector<int64_t> dims = DimsOf(d.shape());
    const int64_t n = dims.back();
    dims.push_back(n);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, ShapeOf(dims), d.dtype()));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T{});
    const int64_t batches = n == 0 ? 0 : d.NumElements() / n;
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t i = 0; i < n; ++i) o[(b * n + i) * n + i] = d.data<T>()[b * n + i];
    }
    return absl::OkStatus();
  }
};

// The batch count and the matrices' M, N of a [..., M, N] tensor.
struct Matrices {
  int64_t batches, m, n;
};

Matrices MatricesOf(const Tensor& x) {
  const int64_t m = x.dim(x.rank() - 2), n = x.dim(x.rank() - 1);
  return {m * n == 0 ? 0 : x.NumElements() / (m * n), m, n};
}

template <typename T>
class MatrixDiagPartOp : public OpKernel {
 public:
  explicit MatrixDiagPartOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be at least 2-dim, received shape: ", x.shape().DebugString()));
    }
    const Matrices mx = MatricesOf(x);
    const int64_t k = std::min(mx.m, mx.n);
    std::vector<int64_t> dims = DimsOf(x.shape());
    dims.resize(dims.size() - 2);
    dims.push_back(k);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, ShapeOf(dims), x.dtype()));
    for (int64_t b = 0; b < mx.batches; ++b) {
      for (int64_t i = 0; i < k; ++i) out->data<T>()[b * k + i] = x.data<T>()[(b * mx.m + i) * mx.n + i];
    }
    return absl::OkStatus();
  }
};

template <typename T>
class MatrixSetDiagOp : public OpKernel {
 public:
  explicit MatrixSetDiagOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& d = ctx.input(1);
    if (x.rank() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be at least 2-dim, received shape: ", x.shape().DebugString()));
    }
    const Matrices mx = MatricesOf(x);
    const int64_t k = std::min(mx.m, mx.n);
    std::vector<int64_t> expected = DimsOf(x.shape());
    expected.resize(expected.size() - 2);
    expected.push_back(k);
    if (DimsOf(d.shape()) != expected) {
      return absl::InvalidArgumentError(absl::StrCat("diagonal must have shape ", ShapeOf(expected).DebugString(),
                                                     " to match input ", x.shape().DebugString(), ", got ",
                                                     d.shape().DebugString()));
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), x.dtype()));
    std::copy(x.data<T>(), x.data<T>() + x.NumElements(), out->data<T>());
    for (int64_t b = 0; b < mx.batches; ++b) {
      for (int64_t i = 0; i < k; ++i) out->data<T>()[(b * mx.m + i) * mx.n + i] = d.data<T>()[b * k + i];
    }
    return absl::OkStatus();
  }
};

template <typename T>
class LinSpaceOp : public OpKernel {
 public:
  explicit LinSpaceOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const char* names[3] = {"start", "stop", "num"};
    for (int i = 0; i < 3; ++i) {
      if (ctx.input(i).rank() != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(names[i], " must be a scalar, not shape ", ctx.input(i).shape().DebugString()));
      }
    }
    const T start = *ctx.input(0).data<T>(), stop = *ctx.input(1).data<T>();
    const Tensor& num_t = ctx.input(2);
    const int64_t num = num_t.dtype() == DType::kInt64 ? *num_t.data<int64_t>() : *num_t.data<int32_t>();
    if (num <= 0) return absl::InvalidArgumentError(absl::StrCat("Requires num > 0: ", num));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({num}), ctx.input(0).dtype()));
    T* o = out->data<T>();
    if (num == 1) {
      o[0] = start;
      return absl::OkStatus();
    }
    // As TensorFlow: start + i * step, and exactly stop at the end. The product is rounded
    // on its own (stored first) rather than fused into one FMA with the sum, as TensorFlow's
    // build does: the last bit of every value agrees.
    const T step = (stop - start) / static_cast<T>(num - 1);
    for (int64_t i = 0; i + 1 < num; ++i) o[i] = step * static_cast<T>(i);
    for (int64_t i = 0; i + 1 < num; ++i) o[i] = start + o[i];
    o[num - 1] = stop;
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterArrayDiagKernels(KernelRegistry& r) {
  const auto numeric = cwise::SupportedDTypes<cwise::NumericTypes>();
  const auto with_bool = cwise::SupportedDTypes<cwise::NumericOrBoolTypes>();
  constexpr auto kWithBool = KernelTypes::kNumericAndBool;
  r.Register({"Diag", kDeviceCpu, TypedFactory<DiagOp>(), "T", numeric});
  r.Register({"DiagPart", kDeviceCpu, TypedFactory<DiagPartOp>(), "T", numeric});
  r.Register({"MatrixDiag", kDeviceCpu, TypedFactory<MatrixDiagOp, kWithBool>(), "T", with_bool});
  r.Register({"MatrixDiagPart", kDeviceCpu, TypedFactory<MatrixDiagPartOp, kWithBool>(), "T", with_bool});
  r.Register({"MatrixSetDiag", kDeviceCpu, TypedFactory<MatrixSetDiagOp, kWithBool>(), "T", with_bool});
  r.Register({"LinSpace", kDeviceCpu, TypedFactory<LinSpaceOp, KernelTypes::kFloating>(), "T",
              {DType::kFloat, DType::kDouble}});
}

}  // namespace tw
