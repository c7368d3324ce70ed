// FIFOQueueResource: a queue of tuples of tensors kept in a device's ResourceMgr (TensorFlow's
// FIFOQueue). Enqueues wait while the queue is full, dequeues while it is empty; a wait
// holds no thread (the callback runs when the queue changes) and ends with Cancelled
// when the waiting step is cancelled, or with OutOfRange (dequeue) / Cancelled (enqueue,
// with cancel_pending_enqueues) when the queue is closed. Thread-safe.
// SetShuffle makes it TensorFlow's RandomShuffleQueue: a dequeue takes a random element and
// only while more than min_after_dequeue remain (all of them once the queue is closed).
// SetPadding makes it TensorFlow's PaddingFIFOQueue: shapes may leave dims unknown, and a
// batch dequeue pads each component to the largest element along them (zeros, "" for strings).
#ifndef TENSORWEAVE_SRC_KERNELS_FIFO_QUEUE_H_
#define TENSORWEAVE_SRC_KERNELS_FIFO_QUEUE_H_

#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/cancellation.h"
#include "kernels/resource_mgr.h"

namespace tw {

class FIFOQueueResource : public ResourceBase, public std::enable_shared_from_this<FIFOQueueResource> {
 public:
  using Tuple = std::vector<Tensor>;
  using DoneCallback = std::function<void(absl::Status)>;
  using DequeueCallback = std::function<void(absl::Status, Tuple)>;

  // InvalidArgument for no component, a dtype a queue cannot hold (resource), or shapes
  // given for some components only. A negative capacity means unbounded.
  static absl::StatusOr<std::shared_ptr<FIFOQueueResource>> Create(std::string name,
                                                           std::vector<DType> types,
                                                           std::vector<PartialShape> shapes,
                                                           int64_t capacity);
  std::string TypeName() const override { return "FIFOQueue"; }
  // Before first use. seed 0: nondeterministic, as TensorFlow's seed=0, seed2=0.
  void SetShuffle(int64_t min_after_dequeue, uint64_t seed);
  bool shuffled() const { return shuffle_; }
  // Before first use. InvalidArgument when a component's shape is missing or of unknown rank.
  absl::Status SetPadding();
  bool padded() const { return pad_; }
  int64_t min_after_dequeue() const { return min_after_dequeue_; }
  const std::string& name() const { return name_; }
  const std::vector<DType>& component_types() const { return types_; }
  // InvalidArgument naming what differs when a shared queue was made with other attrs.
  absl::Status CheckSameAs(const std::vector<DType>& types, const std::vector<PartialShape>& shapes,
                           int64_t capacity) const;

  // One element (a tuple of one tensor per component), checked against the declared
  // dtypes and shapes.
  void Enqueue(Tuple tuple, CancellationManager* cancellation, DoneCallback done);
  // Components of [n, ...] tensors: n elements, the i-th of each component.
  void EnqueueMany(const Tuple& batch, CancellationManager* cancellation, DoneCallback done);
  void Dequeue(CancellationManager* cancellation, DequeueCallback done);
  // n elements stacked into [n, ...] components; needs declared shapes.
  void DequeueMany(int64_t n, CancellationManager* cancellation, DequeueCallback done);
  // As DequeueMany, but a closed queue hands over what it has (at least one element).
  void DequeueUpTo(int64_t n, CancellationManager* cancellation, DequeueCallback done);
  // Later enqueues fail (Cancelled); waiting dequeues that cannot be served now fail
  // with OutOfRange; waiting enqueues fail too with cancel_pending_enqueues.
  void Close(bool cancel_pending_enqueues);
  int64_t size() const;
  bool closed() const;

 private:
  struct Attempt {
    int64_t id = 0;
    std::deque<Tuple> to_enqueue;  // An enqueue: what is still to go in.
    int64_t wanted = 0;            // A dequeue: elements wanted (DequeueMany), or -1.
    std::vector<Tuple> taken;      // A dequeue: elements taken so far.
    bool up_to = false;            // DequeueUpTo: fewer than wanted once closed.
    DoneCallback enqueue_done;
    DequeueCallback dequeue_done;
    CancellationManager* cancellation = nullptr;
    CancellationManager::Token token = CancellationManager::kInvalidToken;
  };
  using Ready = std::vector<std::function<void()>>;

  FIFOQueueResource(std::string name, std::vector<DType> types, std::vector<PartialShape> shapes,
            int64_t capacity);
  absl::Status CheckElement(const Tuple& tuple, bool batched) const;
  void DequeueBatch(int64_t n, bool up_to, CancellationManager* cancellation, DequeueCallback done);
  // Queues the attempt and serves what can be served now.
  void Add(Attempt attempt, bool is_enqueue);
  void Cancel(int64_t id);
  // Moves elements while any attempt can progress; completed attempts' callbacks go to
  // `ready`, to be run without the lock.
  void ServeLocked(Ready* ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FinishDequeueLocked(Attempt& a, absl::Status status, Ready* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static void Release(Attempt& a);
  absl::StatusOr<Tuple> Assemble(const Attempt& a) const;
  absl::StatusOr<Tensor> AssemblePadded(const Attempt& a, size_t component) const;
  std::string ClosedMessage(int64_t requested, size_t size) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  const std::vector<DType> types_;
  const std::vector<PartialShape> shapes_;  // Empty: any shape.
  const int64_t capacity_;                  // Negative: unbounded.
  std::string kind_ = "FIFOQueue";          // In messages, as TensorFlow names the queue.
  bool shuffle_ = false;
  bool pad_ = false;
  int64_t min_after_dequeue_ = 0;
  mutable absl::Mutex mu_;
  std::deque<Tuple> elements_ ABSL_GUARDED_BY(mu_);
  std::deque<Attempt> enqueues_ ABSL_GUARDED_BY(mu_);
  std::deque<Attempt> dequeues_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_FIFO_QUEUE_H_
