// _Send puts its input into the step's rendezvous; _Recv waits for it (asynchronously,
// so a waiting receive holds no thread). In a while loop the key names the frame instance and
// iteration, and deadness travels: a dead _Send sends a dead tensor, which its _Recv outputs as
// dead (a loop's last iteration on every partition of the loop).
#include "kernels/cpu/cpu_kernels.h"

namespace tw {
namespace {

std::string KeyFromAttrs(OpKernelConstruction& c) {
  absl::StatusOr<std::string> key = Rendezvous::KeyFromAttrs(c.attrs());
  if (!key.ok()) {
    c.Fail(key.status());
    return "";
  }
  return *key;
}

absl::Status NoRendezvous() { return absl::InternalError("this step has no rendezvous for _Send/_Recv"); }

std::string StepKey(const std::string& key, const OpKernelContext& ctx) {
  return ctx.frame_iter() == nullptr ? key : Rendezvous::KeyInFrame(key, *ctx.frame_iter());
}

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction& c) : OpKernel(c), key_(KeyFromAttrs(c)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    if (ctx.rendezvous() == nullptr) return NoRendezvous();
    return ctx.rendezvous()->Send(StepKey(key_, ctx), ctx.input_dead() ? Tensor() : ctx.input(0));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string key_;
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction& c) : AsyncOpKernel(c), key_(KeyFromAttrs(c)) {
    c.GetAttr("tensor_type", &dtype_);
  }
  void ComputeAsync(OpKernelContext& ctx, DoneCallback done) override {
    if (ctx.rendezvous() == nullptr) {
      done(NoRendezvous());
      return;
    }
    const bool dead = ctx.input_dead();
    ctx.rendezvous()->RecvAsync(StepKey(key_, ctx), ctx.cancellation(),
                                [this, &ctx, done, dead](const absl::Status& s, const Tensor& value) {
                                  // Unset, the output is dead (the executor lets a _Recv leave it so).
                                  if (s.ok() && (dead || !value.IsInitialized())) {
                                    done(s);
                                    return;
                                  }
                                  if (s.ok() && value.dtype() != dtype_) {
                                    done(absl::InternalError(absl::StrCat(
                                        "received ", DTypeName(value.dtype()), " for ", key_,
                                        ", expected ", DTypeName(dtype_))));
                                    return;
                                  }
                                  if (s.ok()) ctx.set_output(0, value);
                                  done(s);
                                });
  }

 private:
  std::string key_;
  DType dtype_ = DType::kInvalid;
};

}  // namespace

void RegisterSendRecvKernels(KernelRegistry& r) {
  r.Register("_Send", kDeviceCpu, Factory<SendOp>());
  r.Register("_Recv", kDeviceCpu, Factory<RecvOp>());
}

}  // namespace tw
