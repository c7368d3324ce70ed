// Kernels of Switch and Merge. Switch sets only the output its predicate picks; the
// executor treats the unset one as dead. Merge runs once one input is live (the executor
// passes dead inputs as unset tensors) and forwards the first live one.
#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/resource_handle_input.h"

namespace tw {
namespace {

class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& pred = ctx.input(1);
    if (pred.dtype() != DType::kBool || pred.rank() != 0) {
      return absl::InvalidArgumentError("The second input must be a scalar, but it has shape " +
                                        pred.shape().DebugString());
    }
    ctx.set_output(*pred.data<bool>() ? 1 : 0, ctx.input(0));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.input(i).IsInitialized()) continue;
      ctx.set_output(0, ctx.input(i));
      ctx.set_output(1, Tensor::Scalar<int32_t>(i));
      return absl::OkStatus();
    }
    return absl::InternalError("Merge ran without a live input");
  }
  bool IsExpensive() const override { return false; }
};

// Enter, Exit, NextIteration and LoopCond pass their input on; the executor moves the
// value between frames and iterations (src/runtime/executor.cc).
class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, ctx.input(0));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

class LoopCondOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& pred = ctx.input(0);
    if (pred.dtype() != DType::kBool || pred.rank() != 0) {
      return absl::InvalidArgumentError("LoopCond: the loop's predicate must be a bool scalar, but it has shape " +
                                        pred.shape().DebugString());
    }
    ctx.set_output(0, pred);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

// VariableShape: the shape of the variable's current value (TF's cond gradients use it).
class VariableShapeOp : public OpKernel {
 public:
  explicit VariableShapeOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("out_type", &out_type_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(ResourceHandle h, ResourceHandleInput(ctx, 0, "variable"));
    auto var = ctx.resource_mgr()->Lookup(h.container, h.name);
    // NotFound for a variable never assigned, as TensorFlow's (its resource does not exist yet).
    if (!var.ok()) return absl::NotFoundError(absl::StrCat("variable '", h.name, "' does not exist (uninitialized)"));
    TensorShape shape;
    {
      absl::MutexLock lock((*var)->mu());
      if (!(*var)->initialized()) {
        return absl::NotFoundError(absl::StrCat("variable '", h.name, "' does not exist (uninitialized)"));
      }
      shape = (*var)->value().shape();
    }
    std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
    if (out_type_ == DType::kInt64) {
      TW_ASSIGN_OR_RETURN(Tensor out, Tensor::FromVector<int64_t>(dims, TensorShape({shape.rank()})));
      ctx.set_output(0, std::move(out));
    } else {
      std::vector<int32_t> narrow(dims.begin(), dims.end());
      TW_ASSIGN_OR_RETURN(Tensor out, Tensor::FromVector<int32_t>(narrow, TensorShape({shape.rank()})));
      ctx.set_output(0, std::move(out));
    }
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  DType out_type_ = DType::kInt32;
};

}  // namespace

void RegisterControlFlowKernels(KernelRegistry& r) {
  r.Register("Switch", kDeviceCpu, Factory<SwitchOp>());
  r.Register("Merge", kDeviceCpu, Factory<MergeOp>());
  for (const char* op : {"Enter", "Exit", "NextIteration"}) r.Register(op, kDeviceCpu, Factory<ForwardOp>());
  r.Register("LoopCond", kDeviceCpu, Factory<LoopCondOp>());
  r.Register("VariableShape", kDeviceCpu, Factory<VariableShapeOp>());
}

}  // namespace tw
