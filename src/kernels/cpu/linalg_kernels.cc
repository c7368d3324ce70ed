// MatMul and BatchMatMul(V2) on Eigen's GEMM over row-major maps of the tensors (gemm.h), for
// the real types and complex64/128.

// GCC 12 warns falsely inside its own AVX-512 intrinsics as Eigen inlines them (GCC bug
// 105593); set before any include so the system headers see it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <Eigen/Core>
#include <algorithm>
#include <complex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/complex_factory.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/gemm.h"
#include "tensor/tensor_eigen.h"

namespace tw {
namespace {

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("transpose_a", &ta_);
    c.GetAttr("transpose_b", &tb_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    for (int i = 0; i < 2; ++i) {
      if (ctx.input(i).rank() != 2) {
        return absl::InvalidArgumentError(absl::StrCat("In[", i,
                                                       "] is not a matrix. Instead it has shape ",
                                                       ctx.input(i).shape().DebugString()));
      }
    }
    const int64_t m = a.dim(ta_ ? 1 : 0), k = a.dim(ta_ ? 0 : 1);
    const int64_t kb = b.dim(tb_ ? 1 : 0), n = b.dim(tb_ ? 0 : 1);
    if (k != kb) {
      return absl::InvalidArgumentError(
          absl::StrCat("Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                       ", In[1]: ", b.shape().DebugString()));
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({m, n}), a.dtype()));
    Gemm<T>(&ctx, a.data<T>(), b.data<T>(), out->data<T>(), m, k, n, ta_, tb_);
    return absl::OkStatus();
  }

 private:
  bool ta_ = false, tb_ = false;
};

template <typename T>
const T* Conjugated(const T* values, int64_t n, std::vector<T>* copy) {
  copy->resize(n);
  for (int64_t i = 0; i < n; ++i) (*copy)[i] = std::conj(values[i]);
  return copy->data();
}

// x [..., m, k] times y [..., k, n] (last two dims swapped when adj_x / adj_y). kBroadcast:
// batch dims broadcast as in NumPy (BatchMatMulV2); otherwise they must be equal.
template <typename T, bool kBroadcast>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("adj_x", &adj_x_);
    c.GetAttr("adj_y", &adj_y_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    for (int i = 0; i < 2; ++i) {
      if (ctx.input(i).rank() < 2) {
        return absl::InvalidArgumentError(absl::StrCat("In[", i, "] ndims must be >= 2, got shape ",
                                                       ctx.input(i).shape().DebugString()));
      }
    }
    const int rx = x.rank(), ry = y.rank();
    const int64_t m = x.dim(adj_x_ ? rx - 1 : rx - 2), k = x.dim(adj_x_ ? rx - 2 : rx - 1);
    const int64_t ky = y.dim(adj_y_ ? ry - 1 : ry - 2), n = y.dim(adj_y_ ? ry - 2 : ry - 1);
    if (k != ky) {
      return absl::InvalidArgumentError(
          absl::StrCat("Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
                       ", In[1]: ", y.shape().DebugString()));
    }
    // Output batch dims, and each input's batch strides (0 along broadcast dims).
    const int rb = std::max(rx, ry) - 2;
    DimVector batch(rb), xs(rb, 0), ys(rb, 0);
    if (!kBroadcast && rx != ry) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[0] and In[1] have different ndims: ", x.shape().DebugString(), " vs. ",
                       y.shape().DebugString()));
    }
    int64_t x_stride = m * k, y_stride = k * n;
    for (int d = rb - 1; d >= 0; --d) {
      const int dx = d - (rb - (rx - 2)), dy = d - (rb - (ry - 2));
      const int64_t sx = dx >= 0 ? x.dim(dx) : 1, sy = dy >= 0 ? y.dim(dy) : 1;
      const bool ok = kBroadcast ? (sx == sy || sx == 1 || sy == 1) : sx == sy;
      if (!ok) {
        return absl::InvalidArgumentError(
            absl::StrCat(kBroadcast ? "In[0] and In[1] must have compatible batch dimensions: "
                                    : "In[0] and In[1] must have the same batch dims: ",
                         x.shape().DebugString(), " vs. ", y.shape().DebugString()));
      }
      batch[d] = std::max(sx, sy);
      if (sx == 0 || sy == 0) batch[d] = 0;
      xs[d] = sx == 1 ? 0 : x_stride;
      ys[d] = sy == 1 ? 0 : y_stride;
      x_stride *= sx;
      y_stride *= sy;
    }
    DimVector out_dims = batch;
    out_dims.push_back(m);
    out_dims.push_back(n);
    TW_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(out_dims));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_shape, x.dtype()));
    int64_t num_batches = 1;
    for (int64_t b : batch) num_batches *= b;
    if (out->NumElements() == 0) return absl::OkStatus();
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    // adj_x / adj_y take the adjoint: for complex values the conjugate transpose, so the
    // GEMM (which only transposes) reads conjugated copies.
    std::vector<T> x_conj, y_conj;
    if constexpr (kIsComplex<T>) {
      if (adj_x_) xp = Conjugated(xp, x.NumElements(), &x_conj);
      if (adj_y_) yp = Conjugated(yp, y.NumElements(), &y_conj);
    }
    T* op = out->data<T>();
    if (num_batches == 1) {
      Gemm<T>(&ctx, xp, yp, op, m, k, n, adj_x_, adj_y_);
      return absl::OkStatus();
    }
    const int64_t cost = std::max<int64_t>(1, m * n * k / 32);
    ctx.ParallelFor(num_batches, cost, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        int64_t xo = 0, yo = 0, rem = b;
        for (int d = rb - 1; d >= 0; --d) {
          const int64_t i = rem % batch[d];
          rem /= batch[d];
          xo += i * xs[d];
          yo += i * ys[d];
        }
        Gemm<T>(nullptr, xp + xo, yp + yo, op + b * m * n, m, k, n, adj_x_, adj_y_);
      }
    });
    return absl::OkStatus();
  }

 private:
  bool adj_x_ = false, adj_y_ = false;
};

template <typename T>
using BatchMatMulV1Op = BatchMatMulOp<T, false>;
template <typename T>
using BatchMatMulV2Op = BatchMatMulOp<T, true>;

const std::vector<DType> kNumericTypes = {DType::kFloat, DType::kDouble, DType::kInt32,
                                          DType::kInt64};

}  // namespace

void RegisterLinalgKernels(KernelRegistry& r) {
  r.Register({"MatMul", kDeviceCpu, TypedFactory<MatMulOp>(), "T", kNumericTypes});
  r.Register({"BatchMatMul", kDeviceCpu, TypedFactory<BatchMatMulV1Op>(), "T", kNumericTypes});
  r.Register({"BatchMatMulV2", kDeviceCpu, TypedFactory<BatchMatMulV2Op>(), "T", kNumericTypes});
  r.Register({"MatMul", kDeviceCpu, ComplexTypedFactory<MatMulOp>(), "T", ComplexTypes()});
  r.Register({"BatchMatMul", kDeviceCpu, ComplexTypedFactory<BatchMatMulV1Op>(), "T", ComplexTypes()});
  r.Register({"BatchMatMulV2", kDeviceCpu, ComplexTypedFactory<BatchMatMulV2Op>(), "T", ComplexTypes()});
}

}  // namespace tw
