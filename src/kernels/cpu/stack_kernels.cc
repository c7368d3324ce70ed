// Kernels of TF1's stacks. Each run of a StackV2 makes a new stack (a fresh name, as TF's
// kernel does), kept in the step's container of the device's ResourceMgr until StackCloseV2
// removes it or the step ends (kernels/step_container.h), as TF's. Errors
// follow TensorFlow's texts: popping an empty stack, pushing past max_size, pushing a tensor
// of another dtype, using a closed stack.
#include <atomic>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/resource_handle_input.h"
#include "kernels/resource_mgr.h"
#include "kernels/step_container.h"

namespace tw {
namespace {


class StackResource : public ResourceBase {
 public:
  StackResource(std::string name, DType elem_type, int max_size)
      : name_(std::move(name)), elem_type_(elem_type), max_size_(max_size) {}
  std::string TypeName() const override { return "Stack"; }

  absl::Status Push(const Tensor& value) {
    absl::MutexLock lock(&mu_);
    if (value.dtype() != elem_type_) {
      return absl::InvalidArgumentError(absl::StrCat("Stack[", name_, "]: the elem type is ", DTypeName(elem_type_),
                                                     " but a ", DTypeName(value.dtype()), " was pushed"));
    }
    if (max_size_ >= 0 && static_cast<int>(values_.size()) >= max_size_) {
      return absl::InvalidArgumentError(absl::StrCat("Stack[", name_, "] overflowed its max_size (", max_size_, ")"));
    }
    values_.push_back(value);
    return absl::OkStatus();
  }
  absl::StatusOr<Tensor> Pop() {
    absl::MutexLock lock(&mu_);
    if (values_.empty()) return absl::InvalidArgumentError(absl::StrCat("Stack[", name_, "] is empty when calling Pop()."));
    Tensor top = std::move(values_.back());
    values_.pop_back();
    return top;
  }
  DType elem_type() const { return elem_type_; }
  const std::string& name() const { return name_; }

 private:
  const std::string name_;
  const DType elem_type_;
  const int max_size_;
  absl::Mutex mu_;
  std::vector<Tensor> values_ ABSL_GUARDED_BY(mu_);
};

absl::StatusOr<std::shared_ptr<StackResource>> StackInput(const OpKernelContext& ctx) {
  auto stack = LookupResourceInput<StackResource>(ctx, 0, "stack");
  if (absl::IsNotFound(stack.status())) {
    return absl::InvalidArgumentError(absl::StrCat("Stack[", ctx.input(0).resource().name,
                                                   "] does not exist or has already been closed."));
  }
  return stack;
}

class StackOp : public OpKernel {
 public:
  explicit StackOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("elem_type", &elem_type_);
    c.GetAttr("stack_name", &stack_name_);
    if (stack_name_.empty()) stack_name_ = c.name();
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& max_size = ctx.input(0);
    if (max_size.dtype() != DType::kInt32 || max_size.NumElements() != 1) {
      return absl::InvalidArgumentError("max_size must be an int32 scalar, got shape " + max_size.shape().DebugString());
    }
    static std::atomic<int64_t> counter{0};
    const std::string name = absl::StrCat(stack_name_, "_", counter.fetch_add(1));
    const int limit = *max_size.data<int32_t>();
    const DType type = elem_type_;
    TW_RETURN_IF_ERROR(ctx.resource_mgr()
                           ->LookupOrCreateResource<StackResource>(
                               StepContainer(ctx.step_id()), name,
                               [&]() -> absl::StatusOr<std::shared_ptr<StackResource>> {
                                 return std::make_shared<StackResource>(name, type, limit);
                               })
                           .status());
    ctx.set_output(0, Tensor::Resource(ResourceHandle{ctx.device_name(), StepContainer(ctx.step_id()), name}));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  DType elem_type_ = DType::kFloat;
  std::string stack_name_;
};

class StackPushOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<StackResource> stack, StackInput(ctx));
    TW_RETURN_IF_ERROR(stack->Push(ctx.input(1)));
    ctx.set_output(0, ctx.input(1));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

class StackPopOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<StackResource> stack, StackInput(ctx));
    TW_ASSIGN_OR_RETURN(Tensor top, stack->Pop());
    ctx.set_output(0, std::move(top));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

class StackCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<StackResource> stack, StackInput(ctx));
    return ctx.resource_mgr()->Delete(ctx.input(0).resource().container, stack->name());
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

void RegisterStackKernels(KernelRegistry& r) {
  r.Register("StackV2", kDeviceCpu, Factory<StackOp>());
  r.Register("StackPushV2", kDeviceCpu, Factory<StackPushOp>());
  r.Register("StackPopV2", kDeviceCpu, Factory<StackPopOp>());
  r.Register("StackCloseV2", kDeviceCpu, Factory<StackCloseOp>());
}

}  // namespace tw
