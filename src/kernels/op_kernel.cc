#include "kernels/op_kernel.h"

#include "absl/synchronization/notification.h"
#include "graph/graph.h"
#include "tensor/tensor_proto.h"

namespace tw {

OpKernelConstruction::OpKernelConstruction(const Node& node, std::string device_name,
                                           std::string device_type, ResourceMgr* resource_mgr)
    : name_(node.name()),
      op_(node.op()),
      device_name_(std::move(device_name)),
      device_type_(std::move(device_type)),
      attrs_(node.attrs()),
      resource_mgr_(resource_mgr) {
  for (int i = 0; i < node.num_inputs(); ++i) input_types_.push_back(node.input_type(i));
  output_types_ = node.output_types();
}

OpKernelConstruction OpKernelConstruction::WithType(const std::string& attr, DType from,
                                                    DType to) const {
  OpKernelConstruction c = *this;
  c.attrs_[attr] = MakeAttr(to);
  for (DType& t : c.input_types_)
    if (t == from) t = to;
  for (DType& t : c.output_types_)
    if (t == from) t = to;
  return c;
}

template <typename T>
void OpKernelConstruction::Read(absl::StatusOr<T> value, T* out) {
  if (!status_.ok()) return;
  if (!value.ok()) {
    status_ = value.status();
    return;
  }
  *out = *std::move(value);
}

void OpKernelConstruction::GetAttr(const std::string& attr, int64_t* out) {
  Read(GetIntAttr(attrs_, attr), out);
}
void OpKernelConstruction::GetAttr(const std::string& attr, int* out) {
  int64_t v = 0;
  Read(GetIntAttr(attrs_, attr), &v);
  *out = static_cast<int>(v);
}
void OpKernelConstruction::GetAttr(const std::string& attr, float* out) {
  Read(GetFloatAttr(attrs_, attr), out);
}
void OpKernelConstruction::GetAttr(const std::string& attr, bool* out) {
  Read(GetBoolAttr(attrs_, attr), out);
}
void OpKernelConstruction::GetAttr(const std::string& attr, std::string* out) {
  Read(GetStringAttr(attrs_, attr), out);
}
void OpKernelConstruction::GetAttr(const std::string& attr, DType* out) {
  Read(GetTypeAttr(attrs_, attr), out);
}
void OpKernelConstruction::GetAttr(const std::string& attr, PartialShape* out) {
  Read(GetShapeAttr(attrs_, attr), out);
}
void OpKernelConstruction::GetAttr(const std::string& attr, Tensor* out) {
  Read(GetTensorAttr(attrs_, attr), out);
}
void OpKernelConstruction::GetAttr(const std::string& attr, std::vector<int64_t>* out) {
  Read(GetIntListAttr(attrs_, attr), out);
}
void OpKernelConstruction::GetAttr(const std::string& attr, std::vector<DType>* out) {
  Read(GetTypeListAttr(attrs_, attr), out);
}
void OpKernelConstruction::GetAttr(const std::string& attr, std::vector<PartialShape>* out) {
  Read(GetShapeListAttr(attrs_, attr), out);
}

namespace {

// Names the output, its dtype and shape, its bytes and the cap (the executor adds the node).
absl::Status OutputTooLarge(int i, const TensorShape& shape, DType dtype, int64_t max_bytes) {
  const std::string what = absl::StrCat("output ", i);
  TW_RETURN_IF_ERROR(CheckTensorBytes(dtype, shape, max_bytes, what));
  return absl::ResourceExhaustedError(absl::StrCat(what, ": ", DTypeName(dtype), " ", shape.DebugString(),
                                                   " tensor has more than ", kMaxTensorElements, " elements"));
}

}  // namespace

absl::StatusOr<Tensor*> OpKernelContext::allocate_output(int i, const TensorShape& shape, DType dtype) {
  // The hot path is one multiply and two compares: num_elements() saturates instead of
  // wrapping and is at most 2^40 past the first compare, so the product cannot overflow.
  const int64_t n = shape.num_elements();
  if (n > kMaxTensorElements || n * static_cast<int64_t>(DTypeSize(dtype)) > p_.max_tensor_bytes) {
    return OutputTooLarge(i, shape, dtype, p_.max_tensor_bytes);
  }
  // ResourceExhausted rather than std::bad_alloc when the machine has less than the cap.
  TW_ASSIGN_OR_RETURN(outputs_[i], Tensor::Allocate(dtype, shape));
  return &outputs_[i];
}

absl::StatusOr<Tensor*> OpKernelContext::forward_input_or_allocate_output(int in, int i,
                                                                          const TensorShape& shape,
                                                                          DType dtype) {
  Tensor& input = p_.inputs[in];
  if (input.dtype() == dtype && input.shape() == shape && input.RefCountIsOne()) {
    outputs_[i] = std::move(input);
    return &outputs_[i];
  }
  return allocate_output(i, shape, dtype);
}

void OpKernelContext::ParallelFor(int64_t n, int64_t cost_per_unit,
                                  const std::function<void(int64_t, int64_t)>& fn) const {
  if (p_.intra_op_pool == nullptr) {
    fn(0, n);
    return;
  }
  p_.intra_op_pool->ParallelFor(n, cost_per_unit, fn);
}

absl::Status AsyncOpKernel::Compute(OpKernelContext& ctx) {
  absl::Notification done;
  absl::Status result;
  ComputeAsync(ctx, [&](absl::Status s) {
    result = std::move(s);
    done.Notify();
  });
  done.WaitForNotification();
  return result;
}

}  // namespace tw
