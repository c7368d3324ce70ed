// Kernels of Switch and Merge. Switch sets only the output its predicate picks; the
// executor treats the unset one as dead. Merge runs once one input is live (the executor
// passes dead inputs as unset tensors) and forwards the first live one.
#include "kernels/cpu/cpu_kernels.h"

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

}  // namespace

void RegisterControlFlowKernels(KernelRegistry& r) {
  r.Register("Switch", kDeviceCpu, Factory<SwitchOp>());
  r.Register("Merge", kDeviceCpu, Factory<MergeOp>());
}

}  // namespace tw
