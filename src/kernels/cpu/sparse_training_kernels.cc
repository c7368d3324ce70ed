// ResourceSparseApplyXxx: the optimizer updates of the rows `indices` of a variable (and of
// its slots) only, with TensorFlow's formulas, each row written as the dense kernel
// (training_kernels.cc) writes its elements, so a sparse update of distinct rows equals the
// dense one bit for bit. Rows are updated one index after another (a repeated index is
// applied twice, as in TensorFlow); every index is checked first: one outside the variable is
// InvalidArgument naming it and nothing is written. As the dense kernels, a buffer someone
// else still reads is copied before it is written (copy-on-write).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/array_kernels.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/training_scalar_input.h"
#include "kernels/cpu/resource_handle_input.h"

namespace tw {
namespace {

// Locks the N variables of handle inputs 0..N-1 (named by `roles`, var first), checks them,
// the gradient rows (input grad_index) and the indices (input indices_index), then calls
// update(rows, grad_row, inner) for each index in turn, rows[k] pointing into variable k.
template <typename T, size_t N, typename Fn>
absl::Status UpdateRows(OpKernelContext& ctx, const std::array<const char*, N>& roles, int grad_index,
                        int indices_index, Fn update) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  std::array<std::shared_ptr<Var>, N> vars;
  std::array<std::string, N> names;
  std::vector<absl::Mutex*> mus;
  for (size_t k = 0; k < N; ++k) {
    TW_ASSIGN_OR_RETURN(ResourceHandle h,
                        ResourceHandleInput(ctx, static_cast<int>(k), absl::StrCat(roles[k], " variable").c_str()));
    names[k] = h.name;
    auto var = ctx.resource_mgr()->Lookup(h.container, h.name);
    if (!var.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(roles[k], " variable '", h.name, "' is uninitialized"));
    }
    vars[k] = *var;
    for (size_t j = 0; j < k; ++j) {
      if (vars[j] == vars[k]) {
        return absl::InvalidArgumentError(
            absl::StrCat(roles[j], " and ", roles[k], " name the same variable '", names[k], "'"));
      }
    }
    if (vars[k]->dtype() != DTypeOf<T>::value) {
      return absl::InvalidArgumentError(absl::StrCat(roles[k], " variable '", names[k], "' has dtype ",
                                                     DTypeName(vars[k]->dtype()), " but the update has dtype ",
                                                     DTypeName(DTypeOf<T>::value)));
    }
    mus.push_back(vars[k]->mu());
  }
  std::sort(mus.begin(), mus.end());  // address order: two updates sharing variables cannot deadlock
  for (absl::Mutex* mu : mus) mu->Lock();
  struct Unlock {
    std::vector<absl::Mutex*>& mus;
    ~Unlock() {
      for (auto it = mus.rbegin(); it != mus.rend(); ++it) (*it)->Unlock();
    }
  } unlock{mus};
  for (size_t k = 0; k < N; ++k) {
    if (!vars[k]->initialized()) {
      return absl::FailedPreconditionError(absl::StrCat(
          roles[k], " variable '", names[k], "' is uninitialized (run its initializer, e.g. "
          "global_variables_initializer, first)"));
    }
  }
  const TensorShape& shape = vars[0]->value().shape();
  for (size_t k = 1; k < N; ++k) {
    if (vars[k]->value().shape() != shape) {
      return absl::InvalidArgumentError(absl::StrCat("var '", names[0], "' and ", roles[k], " '", names[k],
                                                     "' do not have the same shape: ", shape.DebugString(), " vs ",
                                                     vars[k]->value().shape().DebugString()));
    }
  }
  if (shape.rank() < 1) return absl::InvalidArgumentError("var must be at least 1 dimensional");
  const Tensor& grad = ctx.input(grad_index);
  const Tensor& indices = ctx.input(indices_index);
  if (indices.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices must be one-dimensional, got shape ", indices.shape().DebugString()));
  }
  const int64_t k_rows = indices.dim(0);
  DimVector want = {k_rows};
  want.insert(want.end(), shape.dims().begin() + 1, shape.dims().end());
  if (DimVector(grad.shape().dims().begin(), grad.shape().dims().end()) != want) {
    TW_ASSIGN_OR_RETURN(TensorShape want_shape, TensorShape::Build(want));
    return absl::InvalidArgumentError(absl::StrCat("grad must have shape ", want_shape.DebugString(),
                                                   " (the indices' rows of var '", names[0], "'), got ",
                                                   grad.shape().DebugString()));
  }
  const DimVector idx = array_kernels::IntValues(indices);
  const int64_t rows = shape.dim(0);
  for (size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] < 0 || idx[i] >= rows) {
      return absl::InvalidArgumentError(absl::StrCat("indices[", i, "] = ", idx[i], " is not in [0, ", rows,
                                                     ") (the rows of var '", names[0], "')"));
    }
  }
  std::array<T*, N> base;
  for (size_t k = 0; k < N; ++k) {
    Tensor& value = vars[k]->value();
    if (!value.RefCountIsOne()) {  // someone still reads it: write a copy
      Tensor copy(value.dtype(), value.shape());
      std::memcpy(copy.raw_data(), value.raw_data(), static_cast<size_t>(value.NumElements()) * sizeof(T));
      value = std::move(copy);
    }
    base[k] = value.data<T>();
  }
  const int64_t inner = rows == 0 ? 0 : shape.num_elements() / rows;
  const T* g = grad.data<T>();
  for (size_t i = 0; i < idx.size(); ++i) {
    std::array<T*, N> row;
    for (size_t k = 0; k < N; ++k) row[k] = base[k] + idx[i] * inner;
    update(row, g + static_cast<int64_t>(i) * inner, inner);
  }
  return absl::OkStatus();
}

// prox = var - alpha * grad; var = sign(prox) * max(|prox| - alpha * l1, 0) / (1 + alpha * l2)
// (l1 = 0: prox / (1 + alpha * l2)). With l1 = l2 = 0 this is plain gradient descent.
template <typename T>
class ResourceSparseApplyProximalGradientDescent : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(const T alpha, training::ScalarInput<T>(ctx, 1, "alpha"));
    TW_ASSIGN_OR_RETURN(const T l1, training::ScalarInput<T>(ctx, 2, "l1"));
    TW_ASSIGN_OR_RETURN(const T l2, training::ScalarInput<T>(ctx, 3, "l2"));
    return UpdateRows<T, 1>(ctx, {"var"}, 4, 5, [&](const std::array<T*, 1>& r, const T* g, int64_t n) {
      T* var = r[0];
      for (int64_t j = 0; j < n; ++j) {
        const T prox = var[j] - alpha * g[j];
        if (l1 > 0) {
          const T shrunk = std::max(std::abs(prox) - alpha * l1, T(0));
          var[j] = (prox > 0 ? shrunk : prox < 0 ? -shrunk : T(0)) / (T(1) + alpha * l2);
        } else {
          var[j] = l2 > 0 ? prox / (T(1) + alpha * l2) : prox;
        }
      }
    });
  }
};

// accum = accum * momentum + grad; var -= lr * accum (Nesterov: grad * lr + accum * momentum * lr).
template <typename T>
class ResourceSparseApplyMomentum : public OpKernel {
 public:
  explicit ResourceSparseApplyMomentum(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("use_nesterov", &use_nesterov_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(const T lr, training::ScalarInput<T>(ctx, 2, "lr"));
    TW_ASSIGN_OR_RETURN(const T momentum, training::ScalarInput<T>(ctx, 5, "momentum"));
    const bool nesterov = use_nesterov_;
    return UpdateRows<T, 2>(ctx, {"var", "accum"}, 3, 4, [&](const std::array<T*, 2>& r, const T* g, int64_t n) {
      for (int64_t j = 0; j < n; ++j) {
        const T accum = r[1][j] * momentum + g[j];
        r[1][j] = accum;
        r[0][j] = nesterov ? r[0][j] - (g[j] * lr + accum * momentum * lr) : r[0][j] - lr * accum;
      }
    });
  }

 private:
  bool use_nesterov_ = false;
};

// accum += grad^2 (when update_slots); var -= lr * grad / sqrt(accum).
template <typename T>
class ResourceSparseApplyAdagrad : public OpKernel {
 public:
  explicit ResourceSparseApplyAdagrad(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("update_slots", &update_slots_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(const T lr, training::ScalarInput<T>(ctx, 2, "lr"));
    const bool update_slots = update_slots_;
    return UpdateRows<T, 2>(ctx, {"var", "accum"}, 3, 4, [&](const std::array<T*, 2>& r, const T* g, int64_t n) {
      for (int64_t j = 0; j < n; ++j) {
        const T accum = update_slots ? r[1][j] + g[j] * g[j] : r[1][j];
        r[1][j] = accum;
        r[0][j] = r[0][j] - g[j] * lr / std::sqrt(accum);
      }
    });
  }

 private:
  bool update_slots_ = true;
};

// ms += (grad^2 - ms) * (1 - rho); mom = mom * momentum + lr * grad / sqrt(ms + epsilon); var -= mom.
template <typename T>
class ResourceSparseApplyRMSProp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(const T lr, training::ScalarInput<T>(ctx, 3, "lr"));
    TW_ASSIGN_OR_RETURN(const T rho, training::ScalarInput<T>(ctx, 4, "rho"));
    TW_ASSIGN_OR_RETURN(const T momentum, training::ScalarInput<T>(ctx, 5, "momentum"));
    TW_ASSIGN_OR_RETURN(const T epsilon, training::ScalarInput<T>(ctx, 6, "epsilon"));
    return UpdateRows<T, 3>(ctx, {"var", "ms", "mom"}, 7, 8,
                            [&](const std::array<T*, 3>& r, const T* g, int64_t n) {
                              for (int64_t j = 0; j < n; ++j) {
                                const T ms = r[1][j] + (g[j] * g[j] - r[1][j]) * (T(1) - rho);
                                const T mom = r[2][j] * momentum + g[j] * lr / std::sqrt(ms + epsilon);
                                r[1][j] = ms;
                                r[2][j] = mom;
                                r[0][j] = r[0][j] - mom;
                              }
                            });
  }
};

// The rows `indices` of a variable, copied under its lock (the rest is not read); an index
// outside it is InvalidArgument naming the index.
class ResourceGatherOp : public OpKernel {
 public:
  explicit ResourceGatherOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("dtype", &dtype_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(ResourceHandle h, ResourceHandleInput(ctx, 0, "resource variable"));
    auto found = ctx.resource_mgr()->Lookup(h.container, h.name);
    if (!found.ok()) return absl::FailedPreconditionError(absl::StrCat("variable '", h.name, "' is uninitialized"));
    std::shared_ptr<Var> var = *found;
    if (var->dtype() != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat("variable '", h.name, "' has dtype ", DTypeName(var->dtype()),
                                                     " but is gathered as ", DTypeName(dtype_)));
    }
    if (dtype_ == DType::kString) return absl::UnimplementedError("ResourceGather of strings is not supported");
    absl::MutexLock lock(var->mu());
    if (!var->initialized()) {
      return absl::FailedPreconditionError(absl::StrCat("variable '", h.name, "' is uninitialized"));
    }
    const Tensor& params = var->value();
    if (params.rank() < 1) return absl::InvalidArgumentError("params must be at least 1 dimensional");
    const Tensor& indices = ctx.input(1);
    const DimVector idx = array_kernels::IntValues(indices);
    const int64_t rows = params.dim(0);
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < 0 || idx[i] >= rows) {
        return absl::InvalidArgumentError(absl::StrCat("indices[", i, "] = ", idx[i], " is not in [0, ", rows,
                                                       ") (the rows of variable '", h.name, "')"));
      }
    }
    DimVector dims(indices.shape().dims().begin(), indices.shape().dims().end());
    dims.insert(dims.end(), params.shape().dims().begin() + 1, params.shape().dims().end());
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, dtype_));
    const size_t row = rows == 0 ? 0 : static_cast<size_t>(params.NumElements() / rows) * DTypeSize(dtype_);
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    for (size_t i = 0; i < idx.size(); ++i) std::memcpy(dst + i * row, src + idx[i] * row, row);
    return absl::OkStatus();
  }

 private:
  DType dtype_ = DType::kInvalid;
};

}  // namespace

void RegisterSparseTrainingKernels(KernelRegistry& r) {
  r.Register("ResourceGather", kDeviceCpu, Factory<ResourceGatherOp>());
  r.Register("ResourceSparseApplyProximalGradientDescent", kDeviceCpu,
             TypedFactory<ResourceSparseApplyProximalGradientDescent, KernelTypes::kFloating>());
  r.Register("ResourceSparseApplyMomentum", kDeviceCpu,
             TypedFactory<ResourceSparseApplyMomentum, KernelTypes::kFloating>());
  r.Register("ResourceSparseApplyAdagrad", kDeviceCpu,
             TypedFactory<ResourceSparseApplyAdagrad, KernelTypes::kFloating>());
  r.Register("ResourceSparseApplyRMSProp", kDeviceCpu,
             TypedFactory<ResourceSparseApplyRMSProp, KernelTypes::kFloating>());
}

}  // namespace tw
