// Queues and gradient accumulators, as TensorFlow 1.x's tf.FIFOQueue and
// tf.ConditionalAccumulator: graph-building wrappers over a handle to state that lives in
// the ResourceMgr of the device the handle is placed on (ops that use the handle run
// there too). Shared by every session and client that names the same shared_name on the
// same device.
//
//   tw::FIFOQueue q(g, /*capacity=*/10, {tw::DType::kFloat}, {tw::PartialShape({})});
//   auto enq = q.enqueue({tw::constant(g, 1.0f)});
//   auto x = q.dequeue()[0];          // waits (holding no thread) while the queue is empty
//
// A dequeue on an empty queue and a take_grad before enough gradients wait until they can
// finish, the queue is closed (OutOfRange) or the step is cancelled (Cancelled).
// Errors while building throw StatusError.
#ifndef TENSORWEAVE_DATA_FLOW_OPS_H_
#define TENSORWEAVE_DATA_FLOW_OPS_H_

#include <string>
#include <vector>

#include "tensorweave/ops.h"

namespace tw {

class FIFOQueue {
 public:
  FIFOQueue() = default;
  // capacity < 0: unbounded. shapes: one per component (any shape for each when empty).
  // An empty shared_name names the queue after its node.
  FIFOQueue(Graph& g, int64_t capacity, const std::vector<DType>& dtypes,
            const std::vector<PartialShape>& shapes = {}, const std::string& shared_name = "",
            const std::string& name = "fifo_queue");

  Output queue_ref() const { return handle_; }
  const std::vector<DType>& dtypes() const { return dtypes_; }
  const std::vector<PartialShape>& shapes() const { return shapes_; }

  // Adds one element (one tensor per component); waits while the queue is full.
  Operation enqueue(const std::vector<Output>& components, const std::string& name = "");
  // Adds the slices along dimension 0 of each component as elements.
  Operation enqueue_many(const std::vector<Output>& components, const std::string& name = "");
  // One element; waits while the queue is empty.
  std::vector<Output> dequeue(const std::string& name = "");
  // n elements stacked along a new dimension 0 (needs fully defined shapes).
  std::vector<Output> dequeue_many(const Output& n, const std::string& name = "");
  std::vector<Output> dequeue_many(int32_t n, const std::string& name = "");
  // Later enqueues fail; waiting dequeues fail with OutOfRange once the queue cannot serve
  // them; with cancel_pending_enqueues waiting enqueues fail (Cancelled) too.
  Operation close(bool cancel_pending_enqueues = false, const std::string& name = "");
  Output size(const std::string& name = "");

 private:
  std::string OpName(const std::string& name, const char* suffix) const;
  std::vector<Output> Outputs(const Operation& op) const;
  Output handle_;
  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
};

// Accumulates gradients of one dtype and shape: apply_grad adds a gradient unless its
// local_step is older than the accumulator's global step (stale: dropped); take_grad
// waits for num_required gradients, returns their mean ("MEAN") or sum ("SUM"), resets
// and advances the global step.
class ConditionalAccumulator {
 public:
  ConditionalAccumulator() = default;
  ConditionalAccumulator(Graph& g, DType dtype, const PartialShape& shape = PartialShape::UnknownRank(),
                         const std::string& shared_name = "",
                         const std::string& name = "conditional_accumulator",
                         const std::string& reduction_type = "MEAN");

  Output accumulator_ref() const { return handle_; }
  DType dtype() const { return dtype_; }

  // local_step: an int64 scalar (other integer dtypes are cast).
  Operation apply_grad(const Output& grad, const Output& local_step, const std::string& name = "");
  Output take_grad(const Output& num_required, const std::string& name = "");
  Output take_grad(int32_t num_required, const std::string& name = "");
  Output num_accumulated(const std::string& name = "");
  Operation set_global_step(const Output& new_global_step, const std::string& name = "");

 private:
  std::string OpName(const std::string& name, const char* suffix) const;
  Output handle_;
  DType dtype_ = DType::kInvalid;
};

}  // namespace tw

#endif  // TENSORWEAVE_DATA_FLOW_OPS_H_
