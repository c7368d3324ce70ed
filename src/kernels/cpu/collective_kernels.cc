// CollectiveReduce, CollectiveBcastSend and CollectiveBcastRecv: check the attrs, hand the
// data to the task's CollectiveRuntime (kernels/collective.h) and apply final_op. A group
// of one needs no runtime (TensorFlow runs it too).
#include <cstring>

#include "absl/strings/str_cat.h"
#include "kernels/collective.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

template <typename T>
void DivideBy(Tensor& t, int n) {
  T* d = t.data<T>();
  const int64_t count = t.NumElements();
  for (int64_t i = 0; i < count; ++i) d[i] = d[i] / static_cast<T>(n);
}

class CollectiveOp : public AsyncOpKernel {
 public:
  CollectiveOp(OpKernelConstruction& c, CollectiveKind kind) : AsyncOpKernel(c) {
    params_.kind = kind;
    params_.node_name = c.name();
    int64_t group_size = 0;
    c.GetAttr("group_size", &group_size);
    c.GetAttr("group_key", &params_.group_key);
    c.GetAttr("instance_key", &params_.instance_key);
    float timeout = 0;
    c.GetAttr("timeout_seconds", &timeout);
    c.GetAttr("T", &dtype_);
    params_.timeout_seconds = timeout;
    params_.group_size = static_cast<int>(group_size);
    if (kind == CollectiveKind::kReduce) {
      c.GetAttr("merge_op", &params_.merge_op);
      c.GetAttr("final_op", &final_op_);
      if (!c.status().ok()) return;
      if (params_.merge_op != "Add" && params_.merge_op != "Mul" && params_.merge_op != "Max" &&
          params_.merge_op != "Min") {
        c.Fail(absl::InvalidArgumentError(absl::StrCat(c.name(), ": merge_op must be Add, Mul, Max or Min, not '",
                                                       params_.merge_op, "'")));
      }
      if (final_op_ != "Id" && final_op_ != "Div") {
        c.Fail(absl::InvalidArgumentError(
            absl::StrCat(c.name(), ": final_op must be Id or Div, not '", final_op_, "'")));
      }
    } else {
      c.GetAttr("shape", &shape_);
    }
    if (c.status().ok() && (group_size < 1 || group_size > (1 << 20))) {
      c.Fail(absl::InvalidArgumentError(absl::StrCat(c.name(), ": group_size must be positive, got ", group_size)));
    }
  }

  void ComputeAsync(OpKernelContext& ctx, DoneCallback done) override {
    Tensor data;
    if (params_.kind == CollectiveKind::kBcastRecv) {
      if (!shape_.IsFullyDefined()) {
        done(absl::InvalidArgumentError(absl::StrCat(name(), ": CollectiveBcastRecv needs a fully defined shape")));
        return;
      }
      auto out = ctx.allocate_output(0, *shape_.ToTensorShape(), dtype_);
      if (!out.ok()) {
        done(out.status());
        return;
      }
      data = **out;
    } else {
      const Tensor& in = ctx.input(0);
      if (params_.kind == CollectiveKind::kBcastSend && shape_.known_rank() &&
          !shape_.Matches(in.shape())) {
        done(absl::InvalidArgumentError(absl::StrCat(name(), ": shape attr ", shape_.DebugString(),
                                                     " does not match the input's shape ", in.shape().DebugString())));
        return;
      }
      // The result is a new tensor: the input may be shared with other consumers.
      auto out = ctx.allocate_output(0, in.shape(), in.dtype());
      if (!out.ok()) {
        done(out.status());
        return;
      }
      if (in.TotalBytes() > 0) std::memcpy((*out)->raw_data(), in.raw_data(), in.TotalBytes());
      data = **out;
    }
    if (params_.group_size == 1) {
      if (params_.kind == CollectiveKind::kBcastRecv) {
        done(absl::InvalidArgumentError(absl::StrCat(name(), ": a broadcast receiver needs a group of at least 2")));
        return;
      }
      done(absl::OkStatus());  // The reduction of one tensor is itself (Div by 1 too).
      return;
    }
    std::shared_ptr<CollectiveRuntime> runtime = FindCollectiveRuntime(ctx.device_name());
    if (runtime == nullptr) {
      done(absl::FailedPreconditionError(absl::StrCat(
          name(), ": collective ops of a group of more than one need a server: no collective runtime serves device ",
          ctx.device_name(), " (run the graph through a tw server's session)")));
      return;
    }
    const int group_size = params_.group_size;
    const bool divide = params_.kind == CollectiveKind::kReduce && final_op_ == "Div";
    runtime->Run(params_, data, ctx.cancellation(), [data, group_size, divide, done](absl::Status s) mutable {
      if (s.ok() && divide) {
        VisitNumeric(data.dtype(), [&](auto tag) { DivideBy<TypeOf<decltype(tag)>>(data, group_size); });
      }
      done(s);
    });
  }

 private:
  CollectiveParams params_;
  std::string final_op_ = "Id";
  PartialShape shape_;
  DType dtype_ = DType::kInvalid;
};

template <CollectiveKind kKind>
KernelFactory CollectiveFactory() {
  return [](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    auto k = std::make_unique<CollectiveOp>(c, kKind);
    if (!c.status().ok()) return c.status();
    return std::unique_ptr<OpKernel>(std::move(k));
  };
}

}  // namespace

void RegisterCollectiveKernels(KernelRegistry& r) {
  r.Register("CollectiveReduce", kDeviceCpu, CollectiveFactory<CollectiveKind::kReduce>());
  r.Register("CollectiveBcastSend", kDeviceCpu, CollectiveFactory<CollectiveKind::kBcastSend>());
  r.Register("CollectiveBcastRecv", kDeviceCpu, CollectiveFactory<CollectiveKind::kBcastRecv>());
}

}  // namespace tw
