// GatherNd (slices copied as bytes), ScatterNd (updates summed into zeros; repeated index
// tuples add) and TensorScatter{Update,Add,Sub,Min,Max} (updates applied to a copy of
// `tensor` in index order: a repeated tuple's last update wins, sums and extremes combine). Each index tuple is checked before anything is written: one outside the
// shape is InvalidArgument naming it.
#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/array_kernels.h"

namespace tw {
namespace {

using array_kernels::IntValues;

// Element offsets of the slice each K-tuple of `idx` addresses in `dims`, or an error naming
// the first tuple outside them. `slice` elements per tuple.
absl::StatusOr<DimVector> SliceOffsets(const DimVector& idx, int64_t k, absl::Span<const int64_t> dims,
                                       int64_t slice, const char* what) {
  const int64_t n = k == 0 ? 0 : static_cast<int64_t>(idx.size()) / k;
  DimVector offsets(k == 0 ? 0 : n);
  for (int64_t t = 0; t < n; ++t) {
    int64_t off = 0;
    for (int64_t d = 0; d < k; ++d) {
      const int64_t v = idx[t * k + d];
      if (v < 0 || v >= dims[d]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "indices[", t, "] = [", absl::StrJoin(idx.begin() + t * k, idx.begin() + (t + 1) * k, ", "),
            "] does not index into ", what, "shape [", absl::StrJoin(dims, ","), "]"));
      }
      off = off * dims[d] + v;
    }
    offsets[t] = off * slice;
  }
  return offsets;
}

class GatherNdOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    if (indices.rank() < 1) return absl::InvalidArgumentError("indices must be at least 1 dimensional");
    const int64_t k = indices.dim(indices.rank() - 1);
    if (k > params.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("indices.shape[-1] = ", k, " must be <= params rank ", params.rank()));
    }
    DimVector dims(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
    dims.insert(dims.end(), params.shape().dims().begin() + k, params.shape().dims().end());
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    int64_t slice = 1;
    for (int d = static_cast<int>(k); d < params.rank(); ++d) slice *= params.dim(d);
    const DimVector idx = IntValues(indices);
    const int64_t tuples = indices.NumElements() / std::max<int64_t>(k, 1);
    if (k == 0) {  // every tuple picks all of params
      TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, params.dtype()));
      const size_t bytes = static_cast<size_t>(slice) * DTypeSize(params.dtype());
      for (int64_t t = 0; t < shape.num_elements() / std::max<int64_t>(slice, 1); ++t) {
        std::memcpy(static_cast<char*>(out->raw_data()) + t * bytes, params.raw_data(), bytes);
      }
      return absl::OkStatus();
    }
    TW_ASSIGN_OR_RETURN(DimVector offsets,
                        SliceOffsets(idx, k, params.shape().dims(), slice, "param "));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, params.dtype()));
    const size_t elem = DTypeSize(params.dtype());
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    for (int64_t t = 0; t < tuples; ++t) {
      std::memcpy(dst + t * slice * elem, src + offsets[t] * elem, static_cast<size_t>(slice) * elem);
    }
    return absl::OkStatus();
  }
};

template <typename T>
class ScatterNdOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& updates = ctx.input(1);
    TW_RETURN_IF_ERROR(array_kernels::CheckVector(ctx.input(2), "shape"));
    const DimVector dims = IntValues(ctx.input(2));
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    if (indices.rank() < 1) return absl::InvalidArgumentError("indices must be at least 1 dimensional");
    const int64_t k = indices.dim(indices.rank() - 1);
    if (k < 1 || k > shape.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("indices.shape[-1] = ", k, " must be in [1, ", shape.rank(), "] (the rank of shape)"));
    }
    // updates.shape must be indices.shape[:-1] + shape[k:].
    DimVector want(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
    want.insert(want.end(), dims.begin() + k, dims.end());
    if (DimVector(updates.shape().dims().begin(), updates.shape().dims().end()) != want) {
      TW_ASSIGN_OR_RETURN(TensorShape want_shape, TensorShape::Build(want));
      return absl::InvalidArgumentError(absl::StrCat("updates.shape ", updates.shape().DebugString(),
                                                     " must be indices.shape[:-1] + shape[K:] = ",
                                                     want_shape.DebugString()));
    }
    int64_t slice = 1;
    for (size_t d = static_cast<size_t>(k); d < dims.size(); ++d) slice *= dims[d];
    TW_ASSIGN_OR_RETURN(DimVector offsets, SliceOffsets(IntValues(indices), k, dims, slice, "output "));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, updates.dtype()));
    T* dst = out->data<T>();
    std::fill(dst, dst + out->NumElements(), T(0));
    const T* src = updates.data<T>();
    for (size_t t = 0; t < offsets.size(); ++t) {
      for (int64_t j = 0; j < slice; ++j) dst[offsets[t] + j] += src[static_cast<int64_t>(t) * slice + j];
    }
    return absl::OkStatus();
  }
};

enum class ScatterKind { kUpdate, kAdd, kSub, kMin, kMax };

template <ScatterKind kind>
struct TensorScatter {
  template <typename T>
  class Op : public OpKernel {
   public:
    explicit Op(OpKernelConstruction& c) : OpKernel(c) {
      std::string policy;
      c.GetAttr("bad_indices_policy", &policy);
      ignore_bad_ = policy == "IGNORE";
      if (policy != "" && policy != "DEFAULT" && policy != "ERROR" && !ignore_bad_) {
        policy_status_ = absl::InvalidArgumentError(absl::StrCat(
            "bad_indices_policy must be one of '', 'DEFAULT', 'ERROR', 'IGNORE', got '", policy, "'"));
      }
    }

    absl::Status Compute(OpKernelContext& ctx) override {
      TW_RETURN_IF_ERROR(policy_status_);
      const Tensor& tensor = ctx.input(0);
      const Tensor& indices = ctx.input(1);
      const Tensor& updates = ctx.input(2);
      // indices [..., K]: index tuples of K coordinates. TensorFlow's shape function and kernel
      // disagree on a vector of indices, so that it always fails there: refused here too.
      if (indices.rank() < 2) {
        return absl::InvalidArgumentError(absl::StrCat("indices must be at least 2-D ([..., K] index tuples), got shape ",
                                                       indices.shape().DebugString()));
      }
      const int batch = indices.rank() - 1;
      const int64_t k = indices.dim(indices.rank() - 1);
      const auto& t_dims = tensor.shape().dims();
      const auto& u_dims = updates.shape().dims();
      if (updates.rank() < batch || !std::equal(u_dims.begin(), u_dims.begin() + batch, indices.shape().dims().begin())) {
        return absl::InvalidArgumentError(absl::StrCat("Outer dimensions of indices and update must match. Indices shape: ",
                                                       indices.shape().DebugString(), ", updates shape:",
                                                       updates.shape().DebugString()));
      }
      if (k > tensor.rank() || updates.rank() - batch != tensor.rank() - k ||
          !std::equal(u_dims.begin() + batch, u_dims.end(), t_dims.begin() + k)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Inner dimensions of output shape must match inner dimensions of updates shape. Output: ",
            tensor.shape().DebugString(), " updates: ", updates.shape().DebugString()));
      }
      int64_t slice = 1;
      for (int d = static_cast<int>(k); d < tensor.rank(); ++d) slice *= tensor.dim(d);
      DimVector idx = IntValues(indices);
      std::vector<bool> skip(k == 0 ? 0 : idx.size() / k, false);
      if (ignore_bad_) {  // tuples outside the shape are left out, as TensorFlow's IGNORE policy
        for (size_t t = 0; t < skip.size(); ++t) {
          for (int64_t d = 0; d < k; ++d) {
            if (idx[t * k + d] < 0 || idx[t * k + d] >= t_dims[d]) skip[t] = true;
          }
          if (skip[t]) std::fill(idx.begin() + t * k, idx.begin() + (t + 1) * k, 0);
        }
      }
      TW_ASSIGN_OR_RETURN(DimVector offsets, SliceOffsets(idx, k, t_dims, slice, ""));
      TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, tensor.shape(), tensor.dtype()));
      T* dst = out->data<T>();
      std::copy(tensor.data<T>(), tensor.data<T>() + tensor.NumElements(), dst);
      const T* src = updates.data<T>();
      for (size_t t = 0; t < offsets.size(); ++t) {
        if (skip[t]) continue;
        T* to = dst + offsets[t];
        const T* from = src + static_cast<int64_t>(t) * slice;
        for (int64_t j = 0; j < slice; ++j) {
          if constexpr (kind == ScatterKind::kUpdate) to[j] = from[j];
          if constexpr (kind == ScatterKind::kAdd) to[j] += from[j];
          if constexpr (kind == ScatterKind::kSub) to[j] -= from[j];
          if constexpr (kind == ScatterKind::kMin) to[j] = std::min(to[j], from[j]);
          if constexpr (kind == ScatterKind::kMax) to[j] = std::max(to[j], from[j]);
        }
      }
      return absl::OkStatus();
    }

   private:
    bool ignore_bad_ = false;
    absl::Status policy_status_;
  };
};

}  // namespace

void RegisterNdKernels(KernelRegistry& r) {
  array_kernels::RegisterPod(r, "GatherNd", Factory<GatherNdOp>(), "Tparams");
  r.Register({"ScatterNd", kDeviceCpu, TypedFactory<ScatterNdOp>(), "T",
              {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
  const std::vector<DType> types = {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64};
  r.Register({"TensorScatterUpdate", kDeviceCpu, TypedFactory<TensorScatter<ScatterKind::kUpdate>::Op>(), "T", types});
  r.Register({"TensorScatterAdd", kDeviceCpu, TypedFactory<TensorScatter<ScatterKind::kAdd>::Op>(), "T", types});
  r.Register({"TensorScatterSub", kDeviceCpu, TypedFactory<TensorScatter<ScatterKind::kSub>::Op>(), "T", types});
  r.Register({"TensorScatterMin", kDeviceCpu, TypedFactory<TensorScatter<ScatterKind::kMin>::Op>(), "T", types});
  r.Register({"TensorScatterMax", kDeviceCpu, TypedFactory<TensorScatter<ScatterKind::kMax>::Op>(), "T", types});
}

}  // namespace tw
