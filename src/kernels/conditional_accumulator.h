// The accumulators of synchronous training (TensorFlow's ConditionalAccumulator and
// SparseConditionalAccumulator, kept in a device's ResourceMgr): they sum the gradients
// of one variable across replicas. A gradient whose local_step is older than the
// accumulator's global step is stale and dropped; TakeGradient waits (holding no thread)
// until num_required gradients arrived, returns their reduction, resets, and advances the
// global step. A waiting take ends with Cancelled when its step is cancelled. Thread-safe.
#ifndef TENSORWEAVE_SRC_KERNELS_CONDITIONAL_ACCUMULATOR_H_
#define TENSORWEAVE_SRC_KERNELS_CONDITIONAL_ACCUMULATOR_H_

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"
#include "core/cancellation.h"
#include "kernels/resource_mgr.h"

namespace tw {

// What the dense and the sparse accumulator share: the global step, staleness, and the
// takes waiting for gradients.
class AccumulatorBase : public ResourceBase, public std::enable_shared_from_this<AccumulatorBase> {
 public:
  enum class Reduction { kMean, kSum };
  // The taken gradient: one tensor (dense) or indices, values and shape (sparse).
  using TakeCallback = std::function<void(absl::Status, std::vector<Tensor>)>;

  const std::string& name() const { return name_; }
  DType dtype() const { return dtype_; }
  // InvalidArgument unless dtype and shape are the declared ones (a shared accumulator).
  absl::Status CheckSameAs(DType dtype, const PartialShape& shape) const;

  void TakeGradient(int64_t num_required, CancellationManager* cancellation, TakeCallback done);
  int64_t num_accumulated() const;
  int64_t global_step() const;
  // Gradients with a local_step below new_global_step are stale from now on.
  void SetGlobalStep(int64_t new_global_step);

 protected:
  AccumulatorBase(std::string name, DType dtype, PartialShape shape, Reduction reduction)
      : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)), reduction_(reduction) {}
  // InvalidArgument for a dtype other than float32/float64 or an unknown reduction_type
  // (TensorFlow's "MEAN" or "SUM"); `kind` names the accumulator in the message.
  static absl::StatusOr<Reduction> CheckArgs(const char* kind, const std::string& name, DType dtype,
                                             const std::string& reduction_type);
  // Unless local_step is stale, runs `add` (it validates and accumulates the gradient)
  // under mu_, then counts the gradient and serves the takes it completes.
  absl::Status Apply(int64_t local_step, absl::FunctionRef<absl::Status()> add);
  // Under mu_, with count() >= 1 gradients accumulated: their reduction, leaving nothing.
  virtual std::vector<Tensor> TakeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;
  int64_t count() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return count_; }

  const std::string name_;
  const DType dtype_;
  const PartialShape shape_;
  const Reduction reduction_;
  mutable absl::Mutex mu_;

 private:
  struct Take {
    int64_t id = 0;
    int64_t num_required = 0;
    TakeCallback done;
    CancellationManager* cancellation = nullptr;
    CancellationManager::Token token = CancellationManager::kInvalidToken;
  };
  using Ready = std::vector<std::function<void()>>;
  void ServeLocked(Ready* ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Cancel(int64_t id);

  int64_t count_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t global_step_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<Take> takes_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
};

// The dense accumulator: the mean (or sum) of whole gradients.
class ConditionalAccumulatorResource : public AccumulatorBase {
 public:
  static absl::StatusOr<std::shared_ptr<ConditionalAccumulatorResource>> Create(
      std::string name, DType dtype, PartialShape shape, const std::string& reduction_type);
  std::string TypeName() const override { return "ConditionalAccumulator"; }

  // Adds `gradient` unless local_step is stale. InvalidArgument when its dtype or shape
  // differs from the declared ones or from the gradients already accumulated.
  absl::Status ApplyGradient(int64_t local_step, const Tensor& gradient);

 private:
  using AccumulatorBase::AccumulatorBase;
  std::vector<Tensor> TakeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) override;
  Tensor sum_ ABSL_GUARDED_BY(mu_);  // Uninitialized while nothing is accumulated.
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CONDITIONAL_ACCUMULATOR_H_
