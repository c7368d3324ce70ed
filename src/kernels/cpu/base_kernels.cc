// Kernels of the base ops: feeds/fetches, constants, placeholders, identity, no-op.
#include "kernels/cpu/cpu_kernels.h"

namespace tw {
namespace {

class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("index", &index_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    CallFrame* frame = ctx.call_frame();
    if (frame == nullptr || index_ >= static_cast<int64_t>(frame->args.size())) {
      return absl::InternalError("no argument " + std::to_string(index_) + " in the call frame");
    }
    ctx.set_output(0, frame->args[index_]);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  int64_t index_ = 0;
};

class RetvalOp : public OpKernel {
 public:
  explicit RetvalOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("index", &index_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    CallFrame* frame = ctx.call_frame();
    if (frame == nullptr || index_ >= static_cast<int64_t>(frame->rets.size())) {
      return absl::InternalError("no return slot " + std::to_string(index_) + " in the call frame");
    }
    frame->rets[index_] = ctx.input(0);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  int64_t index_ = 0;
};

class NoOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext&) override { return absl::OkStatus(); }
  bool IsExpensive() const override { return false; }
};

class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("value", &value_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, value_);  // Shares the buffer; consumers never write into inputs they share.
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

class PlaceholderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext&) override {
    return absl::InvalidArgumentError(
        "you must feed a value for this placeholder (it was needed but not fed)");
  }
};

class IdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, ctx.input(0));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

void RegisterBaseKernels(KernelRegistry& r) {
  r.Register("_Arg", kDeviceCpu, Factory<ArgOp>());
  r.Register("_Retval", kDeviceCpu, Factory<RetvalOp>());
  r.Register("NoOp", kDeviceCpu, Factory<NoOp>());
  r.Register("Const", kDeviceCpu, Factory<ConstOp>());
  r.Register("Placeholder", kDeviceCpu, Factory<PlaceholderOp>());
  r.Register("PlaceholderWithDefault", kDeviceCpu, Factory<IdentityOp>());
  r.Register("Identity", kDeviceCpu, Factory<IdentityOp>());
  r.Register("StopGradient", kDeviceCpu, Factory<IdentityOp>());
}

}  // namespace tw
