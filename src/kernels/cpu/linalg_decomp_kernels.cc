// Batched matrix functions on Eigen's decompositions: MatrixInverse, MatrixDeterminant and
// LogMatrixDeterminant (partial-pivot LU, as TensorFlow's CPU kernels), Cholesky (LLT),
// MatrixSolve (LU) and MatrixTriangularSolve. Each matrix of the batch is independent
// and the batch is split over the intra-op pool.

// GCC 12 warns falsely inside its own AVX-512 intrinsics as Eigen inlines them (GCC bug
// 105593); set before any include so the system headers see it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/linalg_batch.h"

namespace tw {
namespace {

using linalg_batch::BatchCount;
using linalg_batch::CheckSquare;
using linalg_batch::ConstMap;
using linalg_batch::ForEachMatrix;
using linalg_batch::Map;
using linalg_batch::Matrix;

template <typename T>
class MatrixInverseOp : public OpKernel {
 public:
  explicit MatrixInverseOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("adjoint", &adjoint_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckSquare(x, 0));
    const int64_t n = x.dim(x.rank() - 1);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), x.dtype()));
    if (n == 0) return absl::OkStatus();
    return ForEachMatrix(ctx, BatchCount(x.shape()), n * n * n, [&](int64_t b, auto& fail) {
      ConstMap<T> a(x.data<T>() + b * n * n, n, n);
      const Matrix<T> m = adjoint_ ? Matrix<T>(a.transpose()) : Matrix<T>(a);
      Eigen::PartialPivLU<Matrix<T>> lu(m);
      // As TensorFlow: singular when a pivot is exactly 0 (or NaN).
      if (!(lu.matrixLU().diagonal().cwiseAbs().minCoeff() > T(0))) return fail("Input is not invertible.");
      Map<T>(out->data<T>() + b * n * n, n, n) = lu.inverse();
    });
  }

 private:
  bool adjoint_ = false;
};

// sign and log|det| from the LU factors: the permutation's sign times the pivots' signs,
// and the sum of the pivots' log magnitudes (no overflow for large matrices).
template <typename T>
void SignAndLogAbsDet(const Matrix<T>& m, T* sign, T* log_abs) {
  if (m.rows() == 0) {
    *sign = 1;
    *log_abs = 0;
    return;
  }
  Eigen::PartialPivLU<Matrix<T>> lu(m);
  T s = static_cast<T>(lu.permutationP().determinant());
  T sum = 0;
  for (int64_t i = 0; i < m.rows(); ++i) {
    const T d = lu.matrixLU()(i, i);
    sum += std::log(std::abs(d));
    s *= d > 0 ? T(1) : d < 0 ? T(-1) : T(0);
  }
  *sign = s;
  *log_abs = sum;
}

template <typename T>
class MatrixDeterminantOp : public OpKernel {
 public:
  explicit MatrixDeterminantOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckSquare(x, 0));
    const int64_t n = x.dim(x.rank() - 1);
    const TensorShape batch(absl::Span<const int64_t>(x.shape().dims()).subspan(0, x.rank() - 2));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, batch, x.dtype()));
    return ForEachMatrix(ctx, BatchCount(x.shape()), n * n * n, [&](int64_t b, auto&) {
      T sign, log_abs;
      SignAndLogAbsDet<T>(ConstMap<T>(x.data<T>() + b * n * n, n, n), &sign, &log_abs);
      out->data<T>()[b] = sign * std::exp(log_abs);
    });
  }
};

template <typename T>
class LogMatrixDeterminantOp : public OpKernel {
 public:
  explicit LogMatrixDeterminantOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckSquare(x, 0));
    const int64_t n = x.dim(x.rank() - 1);
    const TensorShape batch(absl::Span<const int64_t>(x.shape().dims()).subspan(0, x.rank() - 2));
    TW_ASSIGN_OR_RETURN(Tensor * sign, ctx.allocate_output(0, batch, x.dtype()));
    TW_ASSIGN_OR_RETURN(Tensor * log_abs, ctx.allocate_output(1, batch, x.dtype()));
    return ForEachMatrix(ctx, BatchCount(x.shape()), n * n * n, [&](int64_t b, auto&) {
      SignAndLogAbsDet<T>(ConstMap<T>(x.data<T>() + b * n * n, n, n), sign->data<T>() + b,
                          log_abs->data<T>() + b);
    });
  }
};

template <typename T>
class CholeskyOp : public OpKernel {
 public:
  explicit CholeskyOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckSquare(x, 0));
    const int64_t n = x.dim(x.rank() - 1);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), x.dtype()));
    if (n == 0) return absl::OkStatus();
    return ForEachMatrix(ctx, BatchCount(x.shape()), n * n * n, [&](int64_t b, auto&) {
      // Reads only the lower triangle, as TensorFlow's.
      Eigen::LLT<Matrix<T>, Eigen::Lower> llt(ConstMap<T>(x.data<T>() + b * n * n, n, n));
      Map<T> l(out->data<T>() + b * n * n, n, n);
      if (llt.info() == Eigen::Success) {
        l = llt.matrixL();
      } else {
        // Not positive definite: TensorFlow 2 fills the lower triangle with NaN rather than
        // failing (its upper triangle is left unset; ours is 0).
        l.setZero();
        l.template triangularView<Eigen::Lower>().setConstant(std::numeric_limits<T>::quiet_NaN());
      }
    });
  }
};

// matrix [..., M, M] and rhs [..., M, K] with equal batch dims.
absl::Status CheckSolveShapes(const Tensor& a, const Tensor& rhs) {
  TW_RETURN_IF_ERROR(CheckSquare(a, 0));
  if (rhs.rank() != a.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("Input and rhs ranks must be equal: ", a.shape().DebugString(),
                                                   " vs. ", rhs.shape().DebugString()));
  }
  for (int d = 0; d + 1 < a.rank(); ++d) {
    if (a.dim(d) != rhs.dim(d)) {
      return absl::InvalidArgumentError(absl::StrCat("Input matrix and right-hand side must have the same ",
                                                     d + 2 < a.rank() ? "batch dims" : "number of rows", ": ",
                                                     a.shape().DebugString(), " vs. ", rhs.shape().DebugString()));
    }
  }
  return absl::OkStatus();
}

template <typename T>
class MatrixSolveOp : public OpKernel {
 public:
  explicit MatrixSolveOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("adjoint", &adjoint_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& rhs = ctx.input(1);
    TW_RETURN_IF_ERROR(CheckSolveShapes(a, rhs));
    const int64_t n = a.dim(a.rank() - 1), k = rhs.dim(rhs.rank() - 1);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, rhs.shape(), rhs.dtype()));
    if (n == 0 || k == 0) return absl::OkStatus();
    return ForEachMatrix(ctx, BatchCount(a.shape()), n * n * n, [&](int64_t b, auto& fail) {
      ConstMap<T> m(a.data<T>() + b * n * n, n, n);
      Eigen::PartialPivLU<Matrix<T>> lu(adjoint_ ? Matrix<T>(m.transpose()) : Matrix<T>(m));
      if (!(lu.matrixLU().diagonal().cwiseAbs().minCoeff() > T(0))) return fail("Input matrix is not invertible.");
      Map<T>(out->data<T>() + b * n * k, n, k) = lu.solve(ConstMap<T>(rhs.data<T>() + b * n * k, n, k));
    });
  }

 private:
  bool adjoint_ = false;
};

template <typename T>
class MatrixTriangularSolveOp : public OpKernel {
 public:
  explicit MatrixTriangularSolveOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("lower", &lower_);
    c.GetAttr("adjoint", &adjoint_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& rhs = ctx.input(1);
    TW_RETURN_IF_ERROR(CheckSolveShapes(a, rhs));
    const int64_t n = a.dim(a.rank() - 1), k = rhs.dim(rhs.rank() - 1);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, rhs.shape(), rhs.dtype()));
    if (n == 0 || k == 0) return absl::OkStatus();
    return ForEachMatrix(ctx, BatchCount(a.shape()), n * n * n, [&](int64_t b, auto&) {
      ConstMap<T> m(a.data<T>() + b * n * n, n, n);
      Map<T> x(out->data<T>() + b * n * k, n, k);
      x = ConstMap<T>(rhs.data<T>() + b * n * k, n, k);
      // Only the named triangle is read; a zero on the diagonal gives inf/NaN, as TensorFlow's.
      if (lower_ && !adjoint_) m.template triangularView<Eigen::Lower>().solveInPlace(x);
      if (lower_ && adjoint_) m.transpose().template triangularView<Eigen::Upper>().solveInPlace(x);
      if (!lower_ && !adjoint_) m.template triangularView<Eigen::Upper>().solveInPlace(x);
      if (!lower_ && adjoint_) m.transpose().template triangularView<Eigen::Lower>().solveInPlace(x);
    });
  }

 private:
  bool lower_ = true, adjoint_ = false;
};

}  // namespace

void RegisterLinalgDecompKernels(KernelRegistry& r) {
  const std::vector<DType> floats = {DType::kFloat, DType::kDouble};
  constexpr auto kF = KernelTypes::kFloating;
  r.Register({"MatrixInverse", kDeviceCpu, TypedFactory<MatrixInverseOp, kF>(), "T", floats});
  r.Register({"MatrixDeterminant", kDeviceCpu, TypedFactory<MatrixDeterminantOp, kF>(), "T", floats});
  r.Register({"LogMatrixDeterminant", kDeviceCpu, TypedFactory<LogMatrixDeterminantOp, kF>(), "T", floats});
  r.Register({"Cholesky", kDeviceCpu, TypedFactory<CholeskyOp, kF>(), "T", floats});
  r.Register({"MatrixSolve", kDeviceCpu, TypedFactory<MatrixSolveOp, kF>(), "T", floats});
  r.Register({"MatrixTriangularSolve", kDeviceCpu, TypedFactory<MatrixTriangularSolveOp, kF>(), "T", floats});
}

}  // namespace tw
