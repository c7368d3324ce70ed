#include "tensorweave/data_flow_ops.h"

#include "client/op_builder.h"
#include "graph/attr_value.h"

namespace tw {
namespace {

// The default name of an op on `handle`: the handle's name without its scopes (the op
// gets the current ones), plus `suffix`, as TensorFlow names "fifo_queue_enqueue".
std::string DefaultName(const Output& handle, const std::string& name, const char* suffix) {
  if (!name.empty()) return name;
  const std::string& full = handle.op().name();
  return full.substr(full.rfind('/') + 1) + suffix;
}

// Integer steps become the int64 the accumulator ops take.
Output AsInt64(const Output& x) { return x.dtype() == DType::kInt64 ? x : cast(x, DType::kInt64); }

}  // namespace

FIFOQueue::FIFOQueue(Graph& g, int64_t capacity, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes, const std::string& shared_name,
                     const std::string& name)
    : dtypes_(dtypes), shapes_(shapes) {
  handle_ = client::AddOp(g, "FIFOQueueV2", name, {},
                          {{"component_types", MakeAttr(absl::Span<const DType>(dtypes))},
                           {"shapes", MakeAttr(absl::Span<const PartialShape>(shapes))},
                           {"capacity", MakeAttr(capacity)},
                           {"shared_name", MakeAttr(shared_name)}})
                .output(0);
}

std::string FIFOQueue::OpName(const std::string& name, const char* suffix) const {
  return DefaultName(handle_, name, suffix);
}

std::vector<Output> FIFOQueue::Outputs(const Operation& op) const {
  std::vector<Output> outputs;
  for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
  return outputs;
}

Operation FIFOQueue::enqueue(const std::vector<Output>& components, const std::string& name) {
  std::vector<Output> inputs{handle_};
  inputs.insert(inputs.end(), components.begin(), components.end());
  return client::AddOp(*handle_.graph(), "QueueEnqueueV2", OpName(name, "_enqueue"), inputs);
}

Operation FIFOQueue::enqueue_many(const std::vector<Output>& components, const std::string& name) {
  std::vector<Output> inputs{handle_};
  inputs.insert(inputs.end(), components.begin(), components.end());
  return client::AddOp(*handle_.graph(), "QueueEnqueueManyV2", OpName(name, "_EnqueueMany"),
                       inputs);
}

std::vector<Output> FIFOQueue::dequeue(const std::string& name) {
  return Outputs(client::AddOp(*handle_.graph(), "QueueDequeueV2", OpName(name, "_Dequeue"),
                               {handle_},
                               {{"component_types", MakeAttr(absl::Span<const DType>(dtypes_))}}));
}

std::vector<Output> FIFOQueue::dequeue_many(const Output& n, const std::string& name) {
  return Outputs(client::AddOp(*handle_.graph(), "QueueDequeueManyV2",
                               OpName(name, "_DequeueMany"), {handle_, n},
                               {{"component_types", MakeAttr(absl::Span<const DType>(dtypes_))}}));
}

std::vector<Output> FIFOQueue::dequeue_many(int32_t n, const std::string& name) {
  return dequeue_many(constant(*handle_.graph(), n), name);
}

Operation FIFOQueue::close(bool cancel_pending_enqueues, const std::string& name) {
  return client::AddOp(*handle_.graph(), "QueueCloseV2", OpName(name, "_Close"), {handle_},
                       {{"cancel_pending_enqueues", MakeAttr(cancel_pending_enqueues)}});
}

Output FIFOQueue::size(const std::string& name) {
  return client::Op("QueueSizeV2", OpName(name, "_Size"), {handle_});
}

ConditionalAccumulator::ConditionalAccumulator(Graph& g, DType dtype, const PartialShape& shape,
                                               const std::string& shared_name,
                                               const std::string& name,
                                               const std::string& reduction_type)
    : dtype_(dtype) {
  handle_ = client::AddOp(g, "ResourceConditionalAccumulator", name, {},
                          {{"dtype", MakeAttr(dtype)},
                           {"shape", MakeAttr(shape)},
                           {"shared_name", MakeAttr(shared_name)},
                           {"reduction_type", MakeAttr(reduction_type)}})
                .output(0);
}

std::string ConditionalAccumulator::OpName(const std::string& name, const char* suffix) const {
  return DefaultName(handle_, name, suffix);
}

Operation ConditionalAccumulator::apply_grad(const Output& grad, const Output& local_step,
                                             const std::string& name) {
  return client::AddOp(*handle_.graph(), "ResourceAccumulatorApplyGradient",
                       OpName(name, "/ApplyGradient"), {handle_, AsInt64(local_step), grad});
}

Output ConditionalAccumulator::take_grad(const Output& num_required, const std::string& name) {
  return client::Op("ResourceAccumulatorTakeGradient", OpName(name, "/TakeGradient"),
                    {handle_, num_required}, {{"dtype", MakeAttr(dtype_)}});
}

Output ConditionalAccumulator::take_grad(int32_t num_required, const std::string& name) {
  return take_grad(constant(*handle_.graph(), num_required), name);
}

Output ConditionalAccumulator::num_accumulated(const std::string& name) {
  return client::Op("ResourceAccumulatorNumAccumulated", OpName(name, "/NumAccumulated"),
                    {handle_});
}

Operation ConditionalAccumulator::set_global_step(const Output& new_global_step,
                                                  const std::string& name) {
  return client::AddOp(*handle_.graph(), "ResourceAccumulatorSetGlobalStep",
                       OpName(name, "/SetGlobalStep"), {handle_, AsInt64(new_global_step)});
}

}  // namespace tw
