// Kernels: the code that runs one node. A kernel is built once per node from its attrs
// (OpKernelConstruction) and then Compute()d once per step with an OpKernelContext.
// Compute returns a Status; errors are prefixed with the node by the executor.
#ifndef TENSORWEAVE_SRC_KERNELS_OP_KERNEL_H_
#define TENSORWEAVE_SRC_KERNELS_OP_KERNEL_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/cancellation.h"
#include "core/threadpool.h"
#include "graph/attr_value.h"
#include "kernels/rendezvous.h"
#include "kernels/resource_mgr.h"
#include "tensorweave/resource_limits.h"
#include "tensorweave/status.h"
#include "tensorweave/tensor.h"

namespace tw {

class Node;
class FunctionLibraryRuntime;

// Feeds in and fetches out of one executor run (read by _Arg, written by _Retval).
struct CallFrame {
  std::vector<Tensor> args;
  std::vector<Tensor> rets;
};

// Everything a kernel may know about its node when it is built.
class OpKernelConstruction {
 public:
  OpKernelConstruction(const Node& node, std::string device_name, std::string device_type,
                       ResourceMgr* resource_mgr);

  const std::string& name() const { return name_; }
  const std::string& op() const { return op_; }
  const std::string& device_name() const { return device_name_; }
  const std::string& device_type() const { return device_type_; }
  const AttrMap& attrs() const { return attrs_; }
  ResourceMgr* resource_mgr() const { return resource_mgr_; }
  // The functions of the session's graph (kernels/function_runtime.h); null where the
  // kernel runs without a library. It outlives the kernel and what the kernel makes.
  FunctionLibraryRuntime* function_library() const { return function_library_; }
  void set_function_library(FunctionLibraryRuntime* flr) { function_library_ = flr; }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DType input_type(int i) const { return input_types_[i]; }
  DType output_type(int i) const { return output_types_[i]; }

  // Typed attr reads; the first failure is kept in status() and later reads are no-ops.
  void GetAttr(const std::string& attr, int64_t* out);
  void GetAttr(const std::string& attr, int* out);
  void GetAttr(const std::string& attr, float* out);
  void GetAttr(const std::string& attr, bool* out);
  void GetAttr(const std::string& attr, std::string* out);
  void GetAttr(const std::string& attr, DType* out);
  void GetAttr(const std::string& attr, PartialShape* out);
  void GetAttr(const std::string& attr, Tensor* out);
  void GetAttr(const std::string& attr, std::vector<int64_t>* out);
  void GetAttr(const std::string& attr, std::vector<DType>* out);
  void GetAttr(const std::string& attr, std::vector<PartialShape>* out);
  void Fail(absl::Status status) {
    if (status_.ok()) status_ = std::move(status);
  }
  const absl::Status& status() const { return status_; }
  // A copy in which the type attr `attr` and every input and output of dtype `from` have
  // dtype `to`: builds this node's kernel for another dtype (the small dtypes run the
  // int64 or float kernel on widened tensors, see kernels/cpu/widen_kernels.cc).
  OpKernelConstruction WithType(const std::string& attr, DType from, DType to) const;

 private:
  template <typename T>
  void Read(absl::StatusOr<T> value, T* out);
  std::string name_, op_, device_name_, device_type_;
  AttrMap attrs_;
  std::vector<DType> input_types_, output_types_;
  ResourceMgr* resource_mgr_;
  FunctionLibraryRuntime* function_library_ = nullptr;
  absl::Status status_;
};

// What Compute sees for one step.
class OpKernelContext {
 public:
  struct Params {
    Tensor* inputs = nullptr;  // num_inputs tensors, owned by the executor; kernels may move from them.
    int num_inputs = 0;
    int num_outputs = 0;
    const std::string* device_name = nullptr;
    ResourceMgr* resource_mgr = nullptr;
    ThreadPool* intra_op_pool = nullptr;
    CancellationManager* cancellation = nullptr;
    CallFrame* call_frame = nullptr;
    Rendezvous* rendezvous = nullptr;  // The step's, for _Send/_Recv.
    int64_t step_id = 0;
    // In a while loop: the frame instance and iteration the node runs in (the suffix of its
    // rendezvous keys, the same on every partition of the loop); null in the root frame.
    const std::string* frame_iter = nullptr;
    // A _Send or _Recv runs even when dead (its peer must not wait forever): true then.
    bool input_dead = false;
    // Cap on one allocated output: shapes computed at run time (Fill of a fed shape,
    // Tile, MatMul...) must fail the step, not exhaust the process's memory.
    int64_t max_tensor_bytes = ResourceLimits{}.max_tensor_bytes;
    // Bit i set: output i has a consumer in the step's graph (all set when not known).
    uint64_t used_outputs = ~uint64_t{0};
  };
  explicit OpKernelContext(const Params& params) : p_(params), outputs_(params.num_outputs) {}
  // What this context was made with: a kernel running another kernel makes its context
  // from a copy.
  const Params& params() const { return p_; }

  int num_inputs() const { return p_.num_inputs; }
  const Tensor& input(int i) const { return p_.inputs[i]; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // False when nothing in the step reads output i (TF's output_required): a kernel may then
  // skip computing it, though it must still set it.
  bool output_required(int i) const { return i >= 64 || ((p_.used_outputs >> i) & 1) != 0; }

  // Allocates output i and returns it for writing; ResourceExhausted when it would take
  // more than Params::max_tensor_bytes.
  absl::StatusOr<Tensor*> allocate_output(int i, const TensorShape& shape, DType dtype);
  // Reuses input `in`'s buffer for output i when nothing else holds it and the shape and
  // dtype match (saving an allocation in elementwise chains); allocates otherwise.
  absl::StatusOr<Tensor*> forward_input_or_allocate_output(int in, int i, const TensorShape& shape,
                                                           DType dtype);
  void set_output(int i, Tensor t) { outputs_[i] = std::move(t); }
  Tensor& output(int i) { return outputs_[i]; }
  absl::InlinedVector<Tensor, 2>& outputs() { return outputs_; }

  const std::string& device_name() const { return *p_.device_name; }
  ResourceMgr* resource_mgr() const { return p_.resource_mgr; }
  CancellationManager* cancellation() const { return p_.cancellation; }
  CallFrame* call_frame() const { return p_.call_frame; }
  Rendezvous* rendezvous() const { return p_.rendezvous; }
  int64_t step_id() const { return p_.step_id; }
  const std::string* frame_iter() const { return p_.frame_iter; }
  bool input_dead() const { return p_.input_dead; }
  // Splits [0, n) over the intra-op pool when the work is large enough.
  void ParallelFor(int64_t n, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn) const;

 private:
  Params p_;
  absl::InlinedVector<Tensor, 2> outputs_;
};

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction& c) : name_(c.name()), op_(c.op()) {}
  virtual ~OpKernel() = default;

  virtual absl::Status Compute(OpKernelContext& ctx) = 0;
  virtual bool IsAsync() const { return false; }
  // Cheap kernels run inline on the thread that made them ready; expensive ones may be
  // handed to another thread so independent branches run in parallel.
  virtual bool IsExpensive() const { return true; }

  const std::string& name() const { return name_; }
  const std::string& op() const { return op_; }

 private:
  std::string name_, op_;
};

// A kernel that finishes later (e.g. Recv waiting for a tensor from another task).
// The context stays valid until `done` is called.
class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void(absl::Status)>;
  virtual void ComputeAsync(OpKernelContext& ctx, DoneCallback done) = 0;
  bool IsAsync() const final { return true; }
  // Blocking wrapper: waits for done.
  absl::Status Compute(OpKernelContext& ctx) final;
};

// Builds a kernel; returns the construction's status if attr reads failed.
using KernelFactory =
    std::function<absl::StatusOr<std::unique_ptr<OpKernel>>(OpKernelConstruction& c)>;

// A factory for a kernel with no type parameter.
template <typename K>
KernelFactory Factory() {
  return [](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    auto k = std::make_unique<K>(c);
    if (!c.status().ok()) return c.status();
    return std::unique_ptr<OpKernel>(std::move(k));
  };
}

// Which dtypes a typed factory instantiates its kernel for.
enum class KernelTypes { kNumeric, kNumericAndBool, kFloating };

// A factory for K<T> with T chosen by the type attr `attr` among `kTypes` (numeric:
// float32, float64, int32, int64).
template <template <typename> class K, KernelTypes kTypes = KernelTypes::kNumeric>
KernelFactory TypedFactory(const char* attr = "T") {
  return [attr](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DType t = DType::kInvalid;
    c.GetAttr(attr, &t);
    if (!c.status().ok()) return c.status();
    std::unique_ptr<OpKernel> k;
    auto make = [&](auto tag) { k = std::make_unique<K<TypeOf<decltype(tag)>>>(c); };
    bool known;
    if constexpr (kTypes == KernelTypes::kNumericAndBool) {
      known = VisitPod(t, make);
    } else if constexpr (kTypes == KernelTypes::kFloating) {
      known = VisitFloating(t, make);
    } else {
      known = VisitNumeric(t, make);
    }
    if (!known) {
      return absl::UnimplementedError(absl::StrCat("no ", c.op(), " kernel for ", DTypeName(t)));
    }
    if (!c.status().ok()) return c.status();
    return k;
  };
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_OP_KERNEL_H_
