// Kernels of the queue and accumulator ops. The state lives in the device's ResourceMgr
// (kernels/fifo_queue.h, kernels/conditional_accumulator.h, sparse_conditional_accumulator.h); the ops that may wait
// (enqueue on a full queue, dequeue on an empty one, take before enough gradients) are
// async kernels, so a waiting op holds no executor thread and its step's cancellation
// ends the wait.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/conditional_accumulator.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/resource_handle_input.h"
#include "kernels/fifo_queue.h"
#include "kernels/sparse_conditional_accumulator.h"

namespace tw {
namespace {

// Input i as a scalar of T, named `what` in the error.
template <typename T>
absl::StatusOr<T> ScalarInput(const OpKernelContext& ctx, int i, const char* what) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DTypeOf<T>::value || t.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be a scalar ",
                                                   DTypeName(DTypeOf<T>::value), ", got ",
                                                   DTypeName(t.dtype()), " ",
                                                   t.shape().DebugString()));
  }
  return t.scalar<T>();
}

// The state's name: shared_name, or the node's name when that is empty (as VarHandleOp).
std::string SharedName(OpKernelConstruction& c) {
  std::string shared_name;
  c.GetAttr("shared_name", &shared_name);
  return shared_name.empty() ? c.name() : shared_name;
}

// FIFOQueueV2, and with kPadded TensorFlow's PaddingFIFOQueueV2: the same state, whose batch
// dequeues pad to the largest element.
template <bool kPadded>
class FIFOQueueOp : public OpKernel {
 public:
  explicit FIFOQueueOp(OpKernelConstruction& c) : OpKernel(c), name_(SharedName(c)) {
    c.GetAttr("container", &container_);
    c.GetAttr("component_types", &types_);
    c.GetAttr("shapes", &shapes_);
    c.GetAttr("capacity", &capacity_);
    handle_ = Tensor::Resource(ResourceHandle{c.device_name(), container_, name_});
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<FIFOQueueResource> queue,
                        ctx.resource_mgr()->LookupOrCreateResource<FIFOQueueResource>(
                            container_, name_, [this]() -> absl::StatusOr<std::shared_ptr<FIFOQueueResource>> {
                              TW_ASSIGN_OR_RETURN(auto q, FIFOQueueResource::Create(name_, types_, shapes_, capacity_));
                              if (kPadded) TW_RETURN_IF_ERROR(q->SetPadding());
                              return q;
                            }));
    TW_RETURN_IF_ERROR(queue->CheckSameAs(types_, shapes_, capacity_));
    if (kPadded && !queue->padded()) {
      return absl::InvalidArgumentError(absl::StrCat("shared queue '", name_, "' is not a PaddingFIFOQueue"));
    }
    ctx.set_output(0, handle_);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string name_, container_;
  std::vector<DType> types_;
  std::vector<PartialShape> shapes_;
  int64_t capacity_ = -1;
  Tensor handle_;
};

template <bool kMany>
class QueueEnqueueOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;

  void ComputeAsync(OpKernelContext& ctx, DoneCallback done) override {
    auto queue = LookupResourceInput<FIFOQueueResource>(ctx, 0, "queue");
    if (!queue.ok()) {
      done(queue.status());
      return;
    }
    FIFOQueueResource::Tuple tuple;
    for (int i = 1; i < ctx.num_inputs(); ++i) tuple.push_back(ctx.input(i));
    if constexpr (kMany) {
      (*queue)->EnqueueMany(tuple, ctx.cancellation(), std::move(done));
    } else {
      (*queue)->Enqueue(std::move(tuple), ctx.cancellation(), std::move(done));
    }
  }
};

template <bool kMany, bool kUpTo = false>
class QueueDequeueOp : public AsyncOpKernel {
 public:
  explicit QueueDequeueOp(OpKernelConstruction& c) : AsyncOpKernel(c) {
    c.GetAttr("component_types", &types_);
  }

  void ComputeAsync(OpKernelContext& ctx, DoneCallback done) override {
    absl::StatusOr<std::shared_ptr<FIFOQueueResource>> queue = Prepare(ctx);
    if (!queue.ok()) {
      done(queue.status());
      return;
    }
    auto deliver = [&ctx, done](absl::Status s, FIFOQueueResource::Tuple tuple) {
      if (s.ok()) {
        for (size_t i = 0; i < tuple.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(tuple[i]));
      }
      done(s);
    };
    if constexpr (kUpTo) {
      (*queue)->DequeueUpTo(ctx.input(1).scalar<int32_t>(), ctx.cancellation(), std::move(deliver));
    } else if constexpr (kMany) {
      (*queue)->DequeueMany(ctx.input(1).scalar<int32_t>(), ctx.cancellation(), std::move(deliver));
    } else {
      (*queue)->Dequeue(ctx.cancellation(), std::move(deliver));
    }
  }

 private:
  absl::StatusOr<std::shared_ptr<FIFOQueueResource>> Prepare(const OpKernelContext& ctx) const {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<FIFOQueueResource> queue,
                        LookupResourceInput<FIFOQueueResource>(ctx, 0, "queue"));
    if (queue->component_types() != types_) {
      auto names = [](const std::vector<DType>& types) {
        return absl::StrJoin(types, ", ",
                             [](std::string* out, DType t) { out->append(DTypeName(t)); });
      };
      return absl::InvalidArgumentError(absl::StrCat(
          "FIFOQueue '", queue->name(), "' holds [", names(queue->component_types()),
          "] but this dequeue expects [", names(types_), "]"));
    }
    if constexpr (kMany) {
      TW_ASSIGN_OR_RETURN(int32_t n, ScalarInput<int32_t>(ctx, 1, "n"));
      (void)n;
    }
    return queue;
  }

  std::vector<DType> types_;
};

// TensorFlow's RandomShuffleQueue: the FIFO queue's state, dequeuing at random.
class RandomShuffleQueueOp : public OpKernel {
 public:
  explicit RandomShuffleQueueOp(OpKernelConstruction& c) : OpKernel(c), name_(SharedName(c)) {
    c.GetAttr("container", &container_);
    c.GetAttr("component_types", &types_);
    c.GetAttr("shapes", &shapes_);
    c.GetAttr("capacity", &capacity_);
    c.GetAttr("min_after_dequeue", &min_after_dequeue_);
    int64_t seed = 0, seed2 = 0;
    c.GetAttr("seed", &seed);
    c.GetAttr("seed2", &seed2);
    seed_ = static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(seed2);
    handle_ = Tensor::Resource(ResourceHandle{c.device_name(), container_, name_});
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    if (capacity_ >= 0 && min_after_dequeue_ >= capacity_) {
      return absl::InvalidArgumentError(absl::StrCat("RandomShuffleQueue '", name_, "': min_after_dequeue ",
                                                     min_after_dequeue_, " must be less than capacity ", capacity_));
    }
    TW_ASSIGN_OR_RETURN(std::shared_ptr<FIFOQueueResource> queue,
                        ctx.resource_mgr()->LookupOrCreateResource<FIFOQueueResource>(
                            container_, name_, [this]() -> absl::StatusOr<std::shared_ptr<FIFOQueueResource>> {
                              TW_ASSIGN_OR_RETURN(auto q, FIFOQueueResource::Create(name_, types_, shapes_, capacity_));
                              q->SetShuffle(min_after_dequeue_, seed_);
                              return q;
                            }));
    TW_RETURN_IF_ERROR(queue->CheckSameAs(types_, shapes_, capacity_));
    if (!queue->shuffled() || queue->min_after_dequeue() != min_after_dequeue_) {
      return absl::InvalidArgumentError(absl::StrCat("shared queue '", name_,
                                                     "' is not a RandomShuffleQueue with min_after_dequeue ",
                                                     min_after_dequeue_));
    }
    ctx.set_output(0, handle_);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string name_, container_;
  std::vector<DType> types_;
  std::vector<PartialShape> shapes_;
  int64_t capacity_ = -1;
  int64_t min_after_dequeue_ = 0;
  uint64_t seed_ = 0;
  Tensor handle_;
};

class QueueCloseOp : public OpKernel {
 public:
  explicit QueueCloseOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("cancel_pending_enqueues", &cancel_pending_enqueues_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<FIFOQueueResource> queue,
                        LookupResourceInput<FIFOQueueResource>(ctx, 0, "queue"));
    queue->Close(cancel_pending_enqueues_);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  bool cancel_pending_enqueues_ = false;
};

class QueueSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<FIFOQueueResource> queue,
                        LookupResourceInput<FIFOQueueResource>(ctx, 0, "queue"));
    ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(queue->size())));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

// ResourceConditionalAccumulator and SparseConditionalAccumulator: the accumulator
// `Resource` named by the node, made on first use.
template <typename Resource>
class AccumulatorOp : public OpKernel {
 public:
  explicit AccumulatorOp(OpKernelConstruction& c) : OpKernel(c), name_(SharedName(c)) {
    c.GetAttr("container", &container_);
    c.GetAttr("dtype", &dtype_);
    c.GetAttr("shape", &shape_);
    c.GetAttr("reduction_type", &reduction_type_);
    handle_ = Tensor::Resource(ResourceHandle{c.device_name(), container_, name_});
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<Resource> accumulator,
                        ctx.resource_mgr()->LookupOrCreateResource<Resource>(
                            container_, name_, [this] { return Resource::Create(name_, dtype_, shape_, reduction_type_); }));
    TW_RETURN_IF_ERROR(accumulator->CheckSameAs(dtype_, shape_));
    ctx.set_output(0, handle_);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string name_, container_, reduction_type_;
  DType dtype_ = DType::kInvalid;
  PartialShape shape_;
  Tensor handle_;
};

template <typename Resource = AccumulatorBase>
absl::StatusOr<std::shared_ptr<Resource>> AccumulatorInput(const OpKernelContext& ctx) {
  return LookupResourceInput<Resource>(ctx, 0, "accumulator");
}

class AccumulatorApplyGradientOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(auto accumulator, AccumulatorInput<ConditionalAccumulatorResource>(ctx));
    TW_ASSIGN_OR_RETURN(int64_t local_step, ScalarInput<int64_t>(ctx, 1, "local_step"));
    return accumulator->ApplyGradient(local_step, ctx.input(2));
  }
};

class SparseAccumulatorApplyGradientOp : public OpKernel {
 public:
  explicit SparseAccumulatorApplyGradientOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("has_known_shape", &has_known_shape_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(auto accumulator, AccumulatorInput<SparseConditionalAccumulatorResource>(ctx));
    TW_ASSIGN_OR_RETURN(int64_t local_step, ScalarInput<int64_t>(ctx, 1, "local_step"));
    return accumulator->ApplyGradient(local_step, ctx.input(2), ctx.input(3),
                                      has_known_shape_ ? &ctx.input(4) : nullptr);
  }

 private:
  bool has_known_shape_ = false;
};

// ResourceAccumulatorTakeGradient (one output) and SparseAccumulatorTakeGradient (indices,
// values, shape): waits, holding no thread, for the gradients of the `Resource`.
template <typename Resource>
class AccumulatorTakeGradientOp : public AsyncOpKernel {
 public:
  explicit AccumulatorTakeGradientOp(OpKernelConstruction& c) : AsyncOpKernel(c) {
    c.GetAttr("dtype", &dtype_);
  }

  void ComputeAsync(OpKernelContext& ctx, DoneCallback done) override {
    absl::StatusOr<std::shared_ptr<Resource>> accumulator = AccumulatorInput<Resource>(ctx);
    absl::StatusOr<int32_t> num_required =
        accumulator.ok() ? ScalarInput<int32_t>(ctx, 1, "num_required") : accumulator.status();
    if (num_required.ok() && (*accumulator)->dtype() != dtype_) {
      num_required = absl::InvalidArgumentError(absl::StrCat("accumulator '", (*accumulator)->name(), "' holds ",
                                                             DTypeName((*accumulator)->dtype()),
                                                             " but the take expects ", DTypeName(dtype_)));
    }
    if (!num_required.ok()) {
      done(num_required.status());
      return;
    }
    (*accumulator)->TakeGradient(*num_required, ctx.cancellation(), [&ctx, done](absl::Status s, std::vector<Tensor> out) {
      for (size_t i = 0; s.ok() && i < out.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(out[i]));
      done(s);
    });
  }

 private:
  DType dtype_ = DType::kInvalid;
};

class AccumulatorNumAccumulatedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(auto accumulator, AccumulatorInput(ctx));
    ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(accumulator->num_accumulated())));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

class AccumulatorSetGlobalStepOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(auto accumulator, AccumulatorInput(ctx));
    TW_ASSIGN_OR_RETURN(int64_t step, ScalarInput<int64_t>(ctx, 1, "new_global_step"));
    accumulator->SetGlobalStep(step);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

void RegisterDataFlowKernels(KernelRegistry& r) {
  r.Register("FIFOQueueV2", kDeviceCpu, Factory<FIFOQueueOp<false>>());
  r.Register("QueueEnqueueV2", kDeviceCpu, Factory<QueueEnqueueOp<false>>());
  r.Register("QueueEnqueueManyV2", kDeviceCpu, Factory<QueueEnqueueOp<true>>());
  r.Register("QueueDequeueV2", kDeviceCpu, Factory<QueueDequeueOp<false>>());
  r.Register("QueueDequeueManyV2", kDeviceCpu, Factory<QueueDequeueOp<true>>());
  r.Register("QueueCloseV2", kDeviceCpu, Factory<QueueCloseOp>());
  r.Register("QueueDequeueUpToV2", kDeviceCpu, Factory<QueueDequeueOp<true, true>>());
  r.Register("RandomShuffleQueueV2", kDeviceCpu, Factory<RandomShuffleQueueOp>());
  r.Register("PaddingFIFOQueueV2", kDeviceCpu, Factory<FIFOQueueOp<true>>());
  r.Register("QueueSizeV2", kDeviceCpu, Factory<QueueSizeOp>());
  r.Register("ResourceConditionalAccumulator", kDeviceCpu, Factory<AccumulatorOp<ConditionalAccumulatorResource>>());
  r.Register("ResourceAccumulatorApplyGradient", kDeviceCpu, Factory<AccumulatorApplyGradientOp>());
  r.Register("ResourceAccumulatorTakeGradient", kDeviceCpu,
             Factory<AccumulatorTakeGradientOp<ConditionalAccumulatorResource>>());
  r.Register("SparseConditionalAccumulator", kDeviceCpu,
             Factory<AccumulatorOp<SparseConditionalAccumulatorResource>>());
  r.Register("SparseAccumulatorApplyGradient", kDeviceCpu, Factory<SparseAccumulatorApplyGradientOp>());
  r.Register("SparseAccumulatorTakeGradient", kDeviceCpu,
             Factory<AccumulatorTakeGradientOp<SparseConditionalAccumulatorResource>>());
  r.Register("ResourceAccumulatorNumAccumulated", kDeviceCpu,
             Factory<AccumulatorNumAccumulatedOp>());
  r.Register("ResourceAccumulatorSetGlobalStep", kDeviceCpu, Factory<AccumulatorSetGlobalStepOp>());
}

}  // namespace tw
