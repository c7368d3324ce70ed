// ResourceCountUpTo as TensorFlow's: returns the variable's value and increments it, or fails
// with OutOfRange once it has reached `limit` (how limit_epochs ends an input pipeline).
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/resource_handle_input.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

class ResourceCountUpToOp : public OpKernel {
 public:
  explicit ResourceCountUpToOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("limit", &limit_);
    c.GetAttr("T", &dtype_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(ResourceHandle h, ResourceHandleInput(ctx, 0, "variable"));
    auto found = ctx.resource_mgr()->Lookup(h.container, h.name);
    if (!found.ok()) {
      return absl::FailedPreconditionError(absl::StrCat("variable '", h.name, "' is uninitialized"));
    }
    std::shared_ptr<Var> var = *found;
    if (var->dtype() != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat("variable '", h.name, "' has dtype ", DTypeName(var->dtype()),
                                                     " but ResourceCountUpTo counts ", DTypeName(dtype_)));
    }
    absl::MutexLock lock(var->mu());
    if (!var->initialized()) {
      return absl::FailedPreconditionError(absl::StrCat("variable '", h.name, "' is uninitialized"));
    }
    Tensor& current = var->value();
    if (current.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat("ResourceCountUpTo needs a scalar variable, '", h.name,
                                                     "' has shape ", current.shape().DebugString()));
    }
    const int64_t before = dtype_ == DType::kInt32 ? current.data<int32_t>()[0] : current.data<int64_t>()[0];
    if (before >= limit_) return absl::OutOfRangeError(absl::StrCat("Reached limit of ", limit_));
    // A new buffer: a reader holding the old value keeps it (copy-on-write, as the variable kernels).
    Tensor next(dtype_, TensorShape());
    if (dtype_ == DType::kInt32) {
      next.data<int32_t>()[0] = static_cast<int32_t>(before + 1);
      ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(before)));
    } else {
      next.data<int64_t>()[0] = before + 1;
      ctx.set_output(0, Tensor::Scalar<int64_t>(before));
    }
    current = std::move(next);
    return absl::OkStatus();
  }

 private:
  int64_t limit_ = 0;
  DType dtype_ = DType::kInt64;
};

}  // namespace

void RegisterCountUpToKernels(KernelRegistry& r) {
  r.Register("ResourceCountUpTo", kDeviceCpu, Factory<ResourceCountUpToOp>());
}

}  // namespace tw
