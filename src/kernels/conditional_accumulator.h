// ConditionalAccumulatorResource: sums gradients for one variable across replicas (TensorFlow's
// ConditionalAccumulator, kept in a device's ResourceMgr). A gradient whose local_step is
// older than the accumulator's global step is stale and dropped; TakeGradient waits
// (holding no thread) until num_required gradients arrived, returns their mean (or sum),
// resets, and advances the global step. A waiting take ends with Cancelled when its step
// is cancelled. Thread-safe.
#ifndef TENSORWEAVE_SRC_KERNELS_CONDITIONAL_ACCUMULATOR_H_
#define TENSORWEAVE_SRC_KERNELS_CONDITIONAL_ACCUMULATOR_H_

#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/cancellation.h"
#include "kernels/resource_mgr.h"

namespace tw {

class ConditionalAccumulatorResource : public ResourceBase,
                               public std::enable_shared_from_this<ConditionalAccumulatorResource> {
 public:
  enum class Reduction { kMean, kSum };
  using TakeCallback = std::function<void(absl::Status, Tensor)>;

  // InvalidArgument for a dtype other than float32/float64 or an unknown reduction_type
  // (TensorFlow's "MEAN" or "SUM").
  static absl::StatusOr<std::shared_ptr<ConditionalAccumulatorResource>> Create(
      std::string name, DType dtype, PartialShape shape, const std::string& reduction_type);
  std::string TypeName() const override { return "ConditionalAccumulator"; }
  const std::string& name() const { return name_; }
  DType dtype() const { return dtype_; }
  absl::Status CheckSameAs(DType dtype, const PartialShape& shape) const;

  // Adds `gradient` unless local_step is stale. InvalidArgument when its dtype or shape
  // differs from the declared ones or from the gradients already accumulated.
  absl::Status ApplyGradient(int64_t local_step, const Tensor& gradient);
  void TakeGradient(int64_t num_required, CancellationManager* cancellation, TakeCallback done);
  int64_t num_accumulated() const;
  int64_t global_step() const;
  // Gradients with a local_step below new_global_step are stale from now on.
  void SetGlobalStep(int64_t new_global_step);

 private:
  struct Take {
    int64_t id = 0;
    int64_t num_required = 0;
    TakeCallback done;
    CancellationManager* cancellation = nullptr;
    CancellationManager::Token token = CancellationManager::kInvalidToken;
  };
  using Ready = std::vector<std::function<void()>>;

  ConditionalAccumulatorResource(std::string name, DType dtype, PartialShape shape, Reduction reduction);
  void ServeLocked(Ready* ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Cancel(int64_t id);

  const std::string name_;
  const DType dtype_;
  const PartialShape shape_;
  const Reduction reduction_;
  mutable absl::Mutex mu_;
  Tensor sum_ ABSL_GUARDED_BY(mu_);  // Uninitialized while nothing is accumulated.
  int64_t count_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t global_step_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<Take> takes_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CONDITIONAL_ACCUMULATOR_H_
