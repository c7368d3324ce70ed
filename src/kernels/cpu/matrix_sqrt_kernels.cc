// MatrixSquareRoot: the principal square root of each square matrix of a batch, by Eigen's
// MatrixFunctions sqrt() (Schur method: real quasi-triangular for float32/float64, complex
// triangular for complex64/complex128), as TensorFlow's kernel. A matrix without a real
// square root (a negative real eigenvalue) gives NaNs there, as in TensorFlow. Its own file:
// the unsupported MatrixFunctions headers are heavy to compile.

// GCC 12 warns falsely (maybe-uninitialized, and uninitialized for MatrixFunctions) inside its own AVX-512 intrinsics as Eigen inlines them (GCC bug
// 105593); set before any include so the system headers see it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <Eigen/Core>
#include <unsupported/Eigen/MatrixFunctions>

#include "kernels/cpu/complex_factory.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/linalg_batch.h"

namespace tw {
namespace {

template <typename T>
class MatrixSquareRootOp : public OpKernel {
 public:
  explicit MatrixSquareRootOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_RETURN_IF_ERROR(linalg_batch::CheckSquare(x, 0));
    const int64_t n = x.dim(x.rank() - 1);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), x.dtype()));
    if (n == 0) return absl::OkStatus();
    return linalg_batch::ForEachMatrix(ctx, linalg_batch::BatchCount(x.shape()), 30 * n * n * n, [&](int64_t b, auto&) {
      // Copied to a plain row-major matrix first, as TensorFlow's kernel does.
      const linalg_batch::Matrix<T> matrix = linalg_batch::ConstMap<T>(x.data<T>() + b * n * n, n, n);
      linalg_batch::Map<T>(out->data<T>() + b * n * n, n, n) = matrix.sqrt();
    });
  }
};

}  // namespace

void RegisterMatrixSqrtKernels(KernelRegistry& r) {
  r.Register({"MatrixSquareRoot", kDeviceCpu, TypedFactory<MatrixSquareRootOp, KernelTypes::kFloating>(), "T",
              {DType::kFloat, DType::kDouble}});
  r.Register({"MatrixSquareRoot", kDeviceCpu, ComplexTypedFactory<MatrixSquareRootOp>(), "T", ComplexTypes()});
}

}  // namespace tw
