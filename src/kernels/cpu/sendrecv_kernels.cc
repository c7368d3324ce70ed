// _Send puts its input into the step's rendezvous; _Recv waits for it (asynchronously,
// so a waiting receive holds no thread).
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

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction& c) : OpKernel(c), key_(KeyFromAttrs(c)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    if (ctx.rendezvous() == nullptr) return NoRendezvous();
    return ctx.rendezvous()->Send(key_, ctx.input(0));
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
    ctx.rendezvous()->RecvAsync(key_, ctx.cancellation(),
                                [this, &ctx, done](const absl::Status& s, const Tensor& value) {
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
