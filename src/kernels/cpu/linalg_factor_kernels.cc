// Batched matrix factorizations with the Eigen decompositions TensorFlow's CPU kernels use,
// so that signs and orders follow TensorFlow's: Qr (HouseholderQR), Svd (BDCSVD, singular
// values descending), SelfAdjointEigV2 (SelfAdjointEigenSolver, eigenvalues ascending,
// reading the lower triangle) and Lu (PartialPivLU, so the same pivots). The matrices of a batch are split over the intra-op pool.

// GCC 12 warns falsely inside its own AVX-512 intrinsics as Eigen inlines them (GCC bug
// 105593); set before any include so the system headers see it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/linalg_batch.h"

namespace tw {
namespace {

using linalg_batch::BatchCount;
using linalg_batch::ConstMap;
using linalg_batch::ForEachMatrix;
using linalg_batch::Map;
using linalg_batch::Matrix;

absl::Status CheckMatrices(const Tensor& x) {
  if (x.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat("Input tensor 0 must have rank >= 2, got ", x.rank()));
  }
  return absl::OkStatus();
}

// x's batch dims followed by `tail`.
TensorShape BatchWith(const Tensor& x, std::initializer_list<int64_t> tail) {
  DimVector dims(x.shape().dims().begin(), x.shape().dims().end() - 2);
  dims.insert(dims.end(), tail.begin(), tail.end());
  return TensorShape(dims);
}

template <typename T>
class QrOp : public OpKernel {
 public:
  explicit QrOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("full_matrices", &full_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckMatrices(x));
    const int64_t m = x.dim(x.rank() - 2), n = x.dim(x.rank() - 1), p = std::min(m, n);
    const int64_t k = full_ ? m : p;
    TW_ASSIGN_OR_RETURN(Tensor * q, ctx.allocate_output(0, BatchWith(x, {m, k}), x.dtype()));
    TW_ASSIGN_OR_RETURN(Tensor * r, ctx.allocate_output(1, BatchWith(x, {k, n}), x.dtype()));
    if (m == 0 || n == 0) {  // nothing to factor: Q is the identity's columns, R is empty or 0
      for (int64_t b = 0; b < BatchCount(x.shape()); ++b) {
        Map<T>(q->data<T>() + b * m * k, m, k) = Matrix<T>::Identity(m, k);
        Map<T>(r->data<T>() + b * k * n, k, n).setZero();
      }
      return absl::OkStatus();
    }
    return ForEachMatrix(ctx, BatchCount(x.shape()), m * n * p, [&](int64_t b, auto&) {
      Eigen::HouseholderQR<Matrix<T>> qr(ConstMap<T>(x.data<T>() + b * m * n, m, n));
      Map<T> qb(q->data<T>() + b * m * k, m, k);
      qb = qr.householderQ() * Matrix<T>::Identity(m, k);
      Map<T>(r->data<T>() + b * k * n, k, n) =
          qr.matrixQR().topRows(k).template triangularView<Eigen::Upper>();
    });
  }

 private:
  bool full_ = false;
};

template <typename T>
class SvdOp : public OpKernel {
 public:
  explicit SvdOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("compute_uv", &compute_uv_);
    c.GetAttr("full_matrices", &full_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckMatrices(x));
    const int64_t m = x.dim(x.rank() - 2), n = x.dim(x.rank() - 1), p = std::min(m, n);
    const int64_t ku = full_ ? m : p, kv = full_ ? n : p;
    DimVector s_dims(x.shape().dims().begin(), x.shape().dims().end() - 2);
    s_dims.push_back(p);
    TW_ASSIGN_OR_RETURN(Tensor * s, ctx.allocate_output(0, TensorShape(s_dims), x.dtype()));
    Tensor* u = nullptr;
    Tensor* v = nullptr;
    const TensorShape none(DimVector{0});
    TW_ASSIGN_OR_RETURN(u, ctx.allocate_output(1, compute_uv_ ? BatchWith(x, {m, ku}) : none, x.dtype()));
    TW_ASSIGN_OR_RETURN(v, ctx.allocate_output(2, compute_uv_ ? BatchWith(x, {n, kv}) : none, x.dtype()));
    if (m == 0 || n == 0) {  // as TensorFlow: full U and V of an empty matrix are identities
      if (compute_uv_) {
        for (int64_t b = 0; b < BatchCount(x.shape()); ++b) {
          Map<T>(u->data<T>() + b * m * ku, m, ku) = Matrix<T>::Identity(m, ku);
          Map<T>(v->data<T>() + b * n * kv, n, kv) = Matrix<T>::Identity(n, kv);
        }
      }
      return absl::OkStatus();
    }
    const int options = !compute_uv_ ? 0
                        : full_      ? (Eigen::ComputeFullU | Eigen::ComputeFullV)
                                     : (Eigen::ComputeThinU | Eigen::ComputeThinV);
    return ForEachMatrix(ctx, BatchCount(x.shape()), m * n * p, [&](int64_t b, auto&) {
      // BDCSVD decomposes in column-major storage; the copy is the row-major input's.
      const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> a = ConstMap<T>(x.data<T>() + b * m * n, m, n);
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> sb(s->data<T>() + b * p, p);
      if (!a.allFinite()) {  // BDCSVD may loop or answer garbage on NaN/inf: NaN, as TensorFlow's result
        const T nan = std::numeric_limits<T>::quiet_NaN();
        sb.setConstant(nan);
        if (compute_uv_) {
          Map<T>(u->data<T>() + b * m * ku, m, ku).setConstant(nan);
          Map<T>(v->data<T>() + b * n * kv, n, kv).setConstant(nan);
        }
        return;
      }
      Eigen::BDCSVD<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> svd(a, options);
      sb = svd.singularValues();
      if (compute_uv_) {
        Map<T>(u->data<T>() + b * m * ku, m, ku) = svd.matrixU();
        Map<T>(v->data<T>() + b * n * kv, n, kv) = svd.matrixV();
      }
    });
  }

 private:
  bool compute_uv_ = true, full_ = false;
};

template <typename T>
class SelfAdjointEigV2Op : public OpKernel {
 public:
  explicit SelfAdjointEigV2Op(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("compute_v", &compute_v_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckMatrices(x));
    const int64_t n = x.dim(x.rank() - 1);
    if (x.dim(x.rank() - 2) != n) return absl::InvalidArgumentError("Input matrix must be square.");
    DimVector e_dims(x.shape().dims().begin(), x.shape().dims().end() - 2);
    e_dims.push_back(n);
    TW_ASSIGN_OR_RETURN(Tensor * e, ctx.allocate_output(0, TensorShape(e_dims), x.dtype()));
    TW_ASSIGN_OR_RETURN(Tensor * v,
                        ctx.allocate_output(1, compute_v_ ? x.shape() : TensorShape(DimVector{0}), x.dtype()));
    if (n == 0) return absl::OkStatus();
    return ForEachMatrix(ctx, BatchCount(x.shape()), n * n * n, [&](int64_t b, auto& fail) {
      Eigen::SelfAdjointEigenSolver<Matrix<T>> eig(
          Matrix<T>(ConstMap<T>(x.data<T>() + b * n * n, n, n)),
          compute_v_ ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
      if (eig.info() != Eigen::Success) {
        return fail("Self-adjoint eigen decomposition was not successful. The input might not be valid.");
      }
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(e->data<T>() + b * n, n) = eig.eigenvalues();
      if (compute_v_) Map<T>(v->data<T>() + b * n * n, n, n) = eig.eigenvectors();
    });
  }

 private:
  bool compute_v_ = true;
};

// lu packs L (unit diagonal implied) below and U on and above the diagonal, p the row
// permutation: lu's row i is L U's row i, which is input's row p[i].
template <typename T>
class LuOp : public OpKernel {
 public:
  explicit LuOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("output_idx_type", &idx_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) {
      return absl::InvalidArgumentError(absl::StrCat("Input tensor must have rank >= 2, got ", x.rank()));
    }
    const int64_t n = x.dim(x.rank() - 1);
    if (x.dim(x.rank() - 2) != n) return absl::InvalidArgumentError("Input matrix must be square.");
    DimVector p_dims(x.shape().dims().begin(), x.shape().dims().end() - 1);
    TW_ASSIGN_OR_RETURN(Tensor * lu, ctx.allocate_output(0, x.shape(), x.dtype()));
    TW_ASSIGN_OR_RETURN(Tensor * p, ctx.allocate_output(1, TensorShape(p_dims), idx_));
    if (n == 0) return absl::OkStatus();
    return ForEachMatrix(ctx, BatchCount(x.shape()), n * n * n, [&](int64_t b, auto& fail) {
      // Column-major, as TensorFlow's kernel factors it: the same pivot choices.
      Eigen::PartialPivLU<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> dec(
          ConstMap<T>(x.data<T>() + b * n * n, n, n));
      Map<T> lub(lu->data<T>() + b * n * n, n, n);
      lub = dec.matrixLU();
      const Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> inverse = dec.permutationP().transpose();
      const auto& rows = inverse.indices();
      for (int64_t i = 0; i < n; ++i) {
        if (idx_ == DType::kInt64) {
          p->data<int64_t>()[b * n + i] = rows[i];
        } else {
          p->data<int32_t>()[b * n + i] = static_cast<int32_t>(rows[i]);
        }
      }
      // PartialPivLU cannot vouch for invertibility; an exact zero pivot at least is caught.
      if (!(lub.diagonal().cwiseAbs().minCoeff() > T(0))) fail("Input is not invertible.");
    });
  }

 private:
  DType idx_ = DType::kInt32;
};

}  // namespace

void RegisterLinalgFactorKernels(KernelRegistry& r) {
  const std::vector<DType> floats = {DType::kFloat, DType::kDouble};
  constexpr auto kF = KernelTypes::kFloating;
  r.Register({"Qr", kDeviceCpu, TypedFactory<QrOp, kF>(), "T", floats});
  r.Register({"Svd", kDeviceCpu, TypedFactory<SvdOp, kF>(), "T", floats});
  r.Register({"SelfAdjointEigV2", kDeviceCpu, TypedFactory<SelfAdjointEigV2Op, kF>(), "T", floats});
  r.Register({"Lu", kDeviceCpu, TypedFactory<LuOp, kF>(), "T", floats});
}

}  // namespace tw
