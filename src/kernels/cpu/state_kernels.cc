// Kernels of the resource-variable ops. Variables live in the device's ResourceMgr.
// Copy-on-write: a read returns a tensor sharing the variable's buffer, and an update
// writes into that buffer only while nobody else holds it, so a value once read never
// changes under its reader.
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/resource_handle_input.h"

namespace tw {
namespace {

constexpr char kUninitializedHint[] =
    " (run its initializer, e.g. global_variables_initializer, first)";

absl::Status Uninitialized(const std::string& name) {
  return absl::FailedPreconditionError(
      absl::StrCat("variable '", name, "' is uninitialized", kUninitializedHint));
}

// The handle of input 0, checked to belong to this kernel's device.
absl::StatusOr<ResourceHandle> HandleInput(const OpKernelContext& ctx) {
  return ResourceHandleInput(ctx, 0, "variable");
}

// The existing variable the handle names, or FailedPrecondition when there is none.
absl::StatusOr<std::shared_ptr<Var>> LookupVar(const OpKernelContext& ctx,
                                               const ResourceHandle& h) {
  auto var = ctx.resource_mgr()->Lookup(h.container, h.name);
  if (!var.ok()) return Uninitialized(h.name);
  return var;
}

absl::Status CheckDType(const ResourceHandle& h, const Var& var, DType dtype) {
  if (var.dtype() != dtype) {
    return absl::InvalidArgumentError(absl::StrCat("variable '", h.name, "' has dtype ",
                                                   DTypeName(var.dtype()),
                                                   " but the value has dtype ", DTypeName(dtype)));
  }
  return absl::OkStatus();
}

class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction& c) : OpKernel(c) {
    std::string container, shared_name;
    c.GetAttr("container", &container);
    c.GetAttr("shared_name", &shared_name);
    c.GetAttr("dtype", &dtype_);
    c.GetAttr("shape", &shape_);
    handle_ = Tensor::Resource(
        ResourceHandle{c.device_name(), container, shared_name.empty() ? c.name() : shared_name});
  }

  // Registers the (still uninitialized) variable with its declared dtype and shape, which
  // the kernels that only see the handle then check against.
  absl::Status Compute(OpKernelContext& ctx) override {
    const ResourceHandle& h = handle_.resource();
    TW_ASSIGN_OR_RETURN(std::shared_ptr<Var> var,
                        ctx.resource_mgr()->LookupOrCreate(h.container, h.name, dtype_, shape_));
    if (!var->declared_shape().IsCompatibleWith(shape_)) {
      return absl::InvalidArgumentError(
          absl::StrCat("variable '", h.name, "' already exists with shape ",
                       var->declared_shape().DebugString(), ", not ", shape_.DebugString()));
    }
    ctx.set_output(0, handle_);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  DType dtype_ = DType::kInvalid;
  PartialShape shape_;
  Tensor handle_;
};

class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("dtype", &dtype_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(ResourceHandle h, HandleInput(ctx));
    TW_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupVar(ctx, h));
    if (var->dtype() != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat("variable '", h.name, "' has dtype ",
                                                     DTypeName(var->dtype()), " but is read as ",
                                                     DTypeName(dtype_)));
    }
    absl::MutexLock lock(var->mu());
    if (!var->initialized()) return Uninitialized(h.name);
    ctx.set_output(0, var->value());  // Shares the buffer: see copy-on-write above.
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  DType dtype_ = DType::kInvalid;
};

class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("validate_shape", &validate_shape_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(ResourceHandle h, HandleInput(ctx));
    const Tensor& value = ctx.input(1);
    std::shared_ptr<Var> var;
    if (auto found = ctx.resource_mgr()->Lookup(h.container, h.name); found.ok()) {
      var = *std::move(found);
      TW_RETURN_IF_ERROR(CheckDType(h, *var, value.dtype()));
    } else {
      // A handle that was fed or outlived its variable: create the variable here.
      TW_ASSIGN_OR_RETURN(var,
                          ctx.resource_mgr()->LookupOrCreate(h.container, h.name, value.dtype(),
                                                             PartialShape::UnknownRank()));
    }
    if (!var->declared_shape().Matches(value.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot assign a value of shape ", value.shape().DebugString(), " to variable '", h.name,
          "' of shape ", var->declared_shape().DebugString()));
    }
    // Share the input's buffer when only this step's input slot holds it (the slot lets go
    // when the node is done); copy otherwise, so that later in-place updates cannot reach
    // a tensor someone else (a feed, a Const) still has.
    Tensor stored = value.RefCountIsOne() ? value : value.Copy();
    absl::MutexLock lock(var->mu());
    if (validate_shape_ && var->initialized() && var->value().shape() != stored.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot assign a value of shape ", stored.shape().DebugString(), " to variable '", h.name,
          "' holding shape ", var->value().shape().DebugString(), " (validate_shape)"));
    }
    var->value() = std::move(stored);
    ctx.set_output(0, var->value());
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  bool validate_shape_ = false;
};

// dst[i] = a[i] op b[i]; integers wrap around instead of overflowing.
template <typename T, bool kAdd>
void Combine(const OpKernelContext& ctx, const T* a, const T* b, T* dst, int64_t n) {
  ctx.ParallelFor(n, 1, [=](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        const U x = static_cast<U>(a[i]), y = static_cast<U>(b[i]);
        dst[i] = static_cast<T>(kAdd ? x + y : x - y);
      } else {
        dst[i] = kAdd ? a[i] + b[i] : a[i] - b[i];
      }
    }
  });
}

template <bool kAdd>
class AssignUpdateVariableOp : public OpKernel {
 public:
  explicit AssignUpdateVariableOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("dtype", &dtype_);
    if (c.status().ok() && !IsNumeric(dtype_)) {
      c.Fail(absl::InvalidArgumentError(
          absl::StrCat(c.op(), " needs a numeric dtype, got ", DTypeName(dtype_))));
    }
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(ResourceHandle h, HandleInput(ctx));
    const Tensor& delta = ctx.input(1);
    TW_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupVar(ctx, h));
    TW_RETURN_IF_ERROR(CheckDType(h, *var, delta.dtype()));
    absl::MutexLock lock(var->mu());
    if (!var->initialized()) return Uninitialized(h.name);
    Tensor& current = var->value();
    if (current.shape() != delta.shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot ", kAdd ? "add" : "subtract", " a value of shape ",
                       delta.shape().DebugString(), kAdd ? " to" : " from", " variable '", h.name,
                       "' of shape ", current.shape().DebugString(), " (shapes must be equal)"));
    }
    // In place only when no reader holds the buffer; otherwise into a new one.
    Tensor result = current.RefCountIsOne() ? current : Tensor(current.dtype(), current.shape());
    VisitNumeric(current.dtype(), [&](auto tag) {
      using T = TypeOf<decltype(tag)>;
      Combine<T, kAdd>(ctx, current.data<T>(), delta.data<T>(), result.data<T>(),
                       current.NumElements());
    });
    current = std::move(result);
    ctx.set_output(0, current);
    return absl::OkStatus();
  }

 private:
  DType dtype_ = DType::kInvalid;
};

class VarIsInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(ResourceHandle h, HandleInput(ctx));
    bool initialized = false;
    if (auto var = ctx.resource_mgr()->Lookup(h.container, h.name); var.ok()) {
      absl::MutexLock lock((*var)->mu());
      initialized = (*var)->initialized();
    }
    ctx.set_output(0, Tensor::Scalar<bool>(initialized));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("ignore_lookup_error", &ignore_lookup_error_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(ResourceHandle h, HandleInput(ctx));
    absl::Status s = ctx.resource_mgr()->Delete(h.container, h.name);
    if (absl::IsNotFound(s) && ignore_lookup_error_) return absl::OkStatus();
    return s;
  }
  bool IsExpensive() const override { return false; }

 private:
  bool ignore_lookup_error_ = true;
};

}  // namespace

void RegisterStateKernels(KernelRegistry& r) {
  r.Register("VarHandleOp", kDeviceCpu, Factory<VarHandleOp>());
  r.Register("ReadVariableOp", kDeviceCpu, Factory<ReadVariableOp>());
  r.Register("AssignVariableOp", kDeviceCpu, Factory<AssignVariableOp>());
  r.Register("AssignAddVariableOp", kDeviceCpu, Factory<AssignUpdateVariableOp<true>>());
  r.Register("AssignSubVariableOp", kDeviceCpu, Factory<AssignUpdateVariableOp<false>>());
  r.Register("VarIsInitializedOp", kDeviceCpu, Factory<VarIsInitializedOp>());
  r.Register("DestroyResourceOp", kDeviceCpu, Factory<DestroyResourceOp>());
}

}  // namespace tw
