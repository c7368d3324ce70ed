// Kernels of TF1's TensorArray (V3 ops). Each run of TensorArrayV3 makes a new array (a
// fresh name, as TF's kernel does) in the step's container of the device's ResourceMgr,
// until TensorArrayCloseV3 or the end of the step (StepContainer).
// A gradient array (TensorArrayGradV3) is made once per (array, source), sized as the array
// is then, and sums the writes to one index (several paths reach one element's gradient).
// Ops re-run by a while loop's gradient (python/tensorweave/while_grad.py re-runs the body
// once per iteration) carry the attr `_tw_rerun`: such a read may see an element an earlier
// read cleared, and such a write of an element already written is skipped (the forward run
// wrote the same value). Errors follow TensorFlow's texts.
#include <atomic>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "graph/attr_value.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/resource_handle_input.h"
#include "kernels/resource_mgr.h"
#include "kernels/step_container.h"

namespace tw {
namespace {

// A dtype as TF's messages name it ("float", "double", "int32").
std::string TfName(DType t) {
  switch (t) {
    case DType::kFloat: return "float";
    case DType::kDouble: return "double";
    case DType::kHalf: return "half";
    default: return DTypeName(t);
  }
}

struct Element {
  Tensor value;
  bool written = false;
  bool cleared = false;
};

class TensorArray : public ResourceBase {
 public:
  TensorArray(std::string name, DType dtype, PartialShape element_shape, int64_t size, bool dynamic_size,
              bool clear_after_read, bool identical_shapes, bool aggregate)
      : name_(std::move(name)), dtype_(dtype), element_shape_(std::move(element_shape)),
        dynamic_size_(dynamic_size), clear_after_read_(clear_after_read), identical_shapes_(identical_shapes),
        aggregate_(aggregate), elements_(size) {}
  std::string TypeName() const override { return "TensorArray"; }
  const std::string& name() const { return name_; }
  DType dtype() const { return dtype_; }
  bool dynamic_size() const { return dynamic_size_; }

  absl::Status Write(int64_t index, const Tensor& value, bool rerun) {
    absl::MutexLock lock(&mu_);
    TW_RETURN_IF_ERROR(CheckOpen());
    if (value.dtype() != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat("TensorArray dtype is ", TfName(dtype_),
                                                     " but Op is trying to write dtype ", TfName(value.dtype()), "."));
    }
    if (index < 0) {
      return absl::InvalidArgumentError(absl::StrCat("Tried to write to index ", index, " but array size is: ",
                                                     elements_.size()));
    }
    if (index >= static_cast<int64_t>(elements_.size())) {
      if (!dynamic_size_) {
        return absl::InvalidArgumentError(absl::StrCat("TensorArray ", name_, ": Tried to write to index ", index,
                                                       " but array is not resizeable and size is: ", elements_.size()));
      }
      elements_.resize(index + 1);
    }
    Element& e = elements_[index];
    if (!element_shape_.Matches(value.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray ", name_, ": Could not write to TensorArray index ", index, " because the value shape is ",
          value.shape().DebugString(), " which is incompatible with the TensorArray's inferred element shape: ",
          element_shape_.DebugString(), " (consider setting infer_shape=False)."));
    }
    if (identical_shapes_ && !element_shape_.IsFullyDefined()) element_shape_ = PartialShape(value.shape());
    if (e.written && rerun) return absl::OkStatus();
    if (e.written && aggregate_) {
      if (e.value.shape() != value.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorArray ", name_, ": Could not aggregate to TensorArray index ", index,
            " because the existing shape is ", e.value.shape().DebugString(), " but the new input shape is ",
            value.shape().DebugString(), "."));
      }
      TW_ASSIGN_OR_RETURN(Tensor sum, Add(e.value, value));
      e.value = std::move(sum);
      return absl::OkStatus();
    }
    if (e.written) {
      return absl::InvalidArgumentError(absl::StrCat("TensorArray ", name_, ": Could not write to TensorArray index ",
                                                     index, " because it has already been written to."));
    }
    e.value = value;
    e.written = true;
    return absl::OkStatus();
  }

  absl::StatusOr<Tensor> Read(int64_t index, bool rerun) {
    absl::MutexLock lock(&mu_);
    TW_RETURN_IF_ERROR(CheckOpen());
    if (index < 0 || index >= static_cast<int64_t>(elements_.size())) {
      return absl::InvalidArgumentError(absl::StrCat("Tried to read from index ", index, " but array size is: ",
                                                     elements_.size()));
    }
    Element& e = elements_[index];
    if (e.cleared && !rerun) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray ", name_, ": Could not read index ", index,
          " twice because it was cleared after a previous read (perhaps try setting clear_after_read = false?)."));
    }
    if (!e.written) {
      if (!element_shape_.IsFullyDefined()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorArray ", name_, ": Could not read from TensorArray index ", index,
            ".  Furthermore, the element shape is not fully defined: ", element_shape_.DebugString(),
            ".  It is possible you are working with a resizeable TensorArray and stop_gradients is not allowing the "
            "gradients to be written.  If you set the full element_shape property on the forward TensorArray, the "
            "proper all-zeros tensor will be returned instead of incurring this error."));
      }
      return Zeros(*element_shape_.ToTensorShape());
    }
    // A cleared element keeps its value for the loop gradient's re-run (see the file comment).
    if (clear_after_read_ && !rerun) e.cleared = true;
    return e.value;
  }

  int64_t Size() {
    absl::MutexLock lock(&mu_);
    return static_cast<int64_t>(elements_.size());
  }
  absl::Status CheckOpenLocked() {
    absl::MutexLock lock(&mu_);
    return CheckOpen();
  }
  // The element shape as the array knows it now (packing zero elements needs it).
  PartialShape element_shape() {
    absl::MutexLock lock(&mu_);
    return element_shape_;
  }
  void Close() {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    elements_.clear();
  }
  // A gradient array's properties, from this one.
  std::shared_ptr<TensorArray> MakeGrad(std::string name) {
    absl::MutexLock lock(&mu_);
    return std::make_shared<TensorArray>(std::move(name), dtype_, element_shape_, elements_.size(), false, true,
                                         false, true);
  }

 private:
  absl::Status CheckOpen() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (closed_) return absl::InvalidArgumentError(absl::StrCat("TensorArray ", name_, " has already been closed."));
    return absl::OkStatus();
  }
  absl::StatusOr<Tensor> Zeros(const TensorShape& shape) const {
    TW_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype_, shape));
    if (!IsPodDType(dtype_)) return absl::UnimplementedError("TensorArray: zeros of dtype " + DTypeName(dtype_));
    std::memset(t.raw_data(), 0, t.TotalBytes());
    return t;
  }
  absl::StatusOr<Tensor> Add(const Tensor& a, const Tensor& b) const {
    TW_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(dtype_, a.shape()));
    if (dtype_ == DType::kFloat) {
      for (int64_t i = 0; i < a.NumElements(); ++i) out.data<float>()[i] = a.data<float>()[i] + b.data<float>()[i];
    } else if (dtype_ == DType::kDouble) {
      for (int64_t i = 0; i < a.NumElements(); ++i) out.data<double>()[i] = a.data<double>()[i] + b.data<double>()[i];
    } else {
      return absl::UnimplementedError(absl::StrCat("TensorArray ", name_, ": aggregating writes of dtype ",
                                                   DTypeName(dtype_), " (only float and double gradients)"));
    }
    return out;
  }

  const std::string name_;
  const DType dtype_;
  absl::Mutex mu_;
  PartialShape element_shape_ ABSL_GUARDED_BY(mu_);
  const bool dynamic_size_, clear_after_read_, identical_shapes_, aggregate_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Element> elements_ ABSL_GUARDED_BY(mu_);
};

absl::StatusOr<std::shared_ptr<TensorArray>> ArrayInput(const OpKernelContext& ctx) {
  auto found = LookupResourceInput<TensorArray>(ctx, 0, "TensorArray");
  if (absl::IsNotFound(found.status())) {
    return absl::InvalidArgumentError(absl::StrCat("TensorArray ", ctx.input(0).resource().name,
                                                   " has already been closed."));
  }
  return found;
}

absl::StatusOr<int64_t> ScalarIndex(const OpKernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kInt32 || t.NumElements() != 1 || t.rank() != 0) {
    return absl::InvalidArgumentError("TensorArray index must be an int32 scalar, got shape " + t.shape().DebugString());
  }
  return *t.data<int32_t>();
}

void SetFlow(OpKernelContext& ctx, int output) { ctx.set_output(output, Tensor::Scalar<float>(0.0f)); }

bool Rerun(OpKernelConstruction& c) {
  auto marked = GetBoolAttr(c.attrs(), "_tw_rerun");
  return marked.ok() && *marked;
}

// Row i of `value` (dims after the first kept) as its own tensor.
absl::StatusOr<Tensor> Rows(const Tensor& value, int64_t begin, int64_t count) {
  TensorShape shape = value.shape();
  shape.set_dim(0, count);
  TW_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(value.dtype(), shape));
  const int64_t row = value.dim(0) == 0 ? 0 : value.NumElements() / value.dim(0);
  if (value.dtype() == DType::kString) {
    for (int64_t i = 0; i < count * row; ++i) out.data<std::string>()[i] = value.data<std::string>()[begin * row + i];
  } else {
    const size_t bytes = DTypeSize(value.dtype()) * row;
    std::memcpy(out.raw_data(), static_cast<const char*>(value.raw_data()) + begin * bytes, count * bytes);
  }
  return out;
}

// The tensors stacked along a new first dim (`concat`: joined along their first dim).
absl::StatusOr<Tensor> Join(DType dtype, const std::vector<Tensor>& parts, const TensorShape& shape) {
  TW_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(dtype, shape));
  int64_t offset = 0;
  for (const Tensor& p : parts) {
    if (dtype == DType::kString) {
      for (int64_t i = 0; i < p.NumElements(); ++i) out.data<std::string>()[offset + i] = p.data<std::string>()[i];
    } else {
      std::memcpy(static_cast<char*>(out.raw_data()) + offset * DTypeSize(dtype), p.raw_data(), p.TotalBytes());
    }
    offset += p.NumElements();
  }
  return out;
}

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("dtype", &dtype_);
    c.GetAttr("element_shape", &element_shape_);
    c.GetAttr("dynamic_size", &dynamic_size_);
    c.GetAttr("clear_after_read", &clear_after_read_);
    c.GetAttr("identical_element_shapes", &identical_);
    c.GetAttr("tensor_array_name", &name_);
    if (name_.empty()) name_ = c.name();
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(int64_t size, ScalarIndex(ctx, 0));
    if (size < 0) return absl::InvalidArgumentError(absl::StrCat("Size should be >= 0, got ", size));
    static std::atomic<int64_t> counter{0};
    const std::string name = absl::StrCat(name_, "_", counter.fetch_add(1));
    TW_RETURN_IF_ERROR(ctx.resource_mgr()
                           ->LookupOrCreateResource<TensorArray>(
                               StepContainer(ctx.step_id()), name,
                               [&]() -> absl::StatusOr<std::shared_ptr<TensorArray>> {
                                 return std::make_shared<TensorArray>(name, dtype_, element_shape_, size, dynamic_size_,
                                                                      clear_after_read_, identical_, false);
                               })
                           .status());
    ctx.set_output(0, Tensor::Resource(ResourceHandle{ctx.device_name(), StepContainer(ctx.step_id()), name}));
    SetFlow(ctx, 1);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  DType dtype_ = DType::kFloat;
  PartialShape element_shape_;
  bool dynamic_size_ = false, clear_after_read_ = true, identical_ = false;
  std::string name_;
};

class TensorArrayGradOp : public OpKernel {
 public:
  explicit TensorArrayGradOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("source", &source_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> forward, ArrayInput(ctx));
    TW_RETURN_IF_ERROR(forward->CheckOpenLocked());
    const std::string name = absl::StrCat(forward->name(), "@", source_);
    TW_RETURN_IF_ERROR(ctx.resource_mgr()
                           ->LookupOrCreateResource<TensorArray>(
                               StepContainer(ctx.step_id()), name,
                               [&]() -> absl::StatusOr<std::shared_ptr<TensorArray>> {
                                 return forward->MakeGrad(name);
                               })
                           .status());
    ctx.set_output(0, Tensor::Resource(ResourceHandle{ctx.device_name(), StepContainer(ctx.step_id()), name}));
    SetFlow(ctx, 1);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string source_;
};

class TensorArrayWriteOp : public OpKernel {
 public:
  explicit TensorArrayWriteOp(OpKernelConstruction& c) : OpKernel(c), rerun_(Rerun(c)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx));
    TW_ASSIGN_OR_RETURN(int64_t index, ScalarIndex(ctx, 1));
    TW_RETURN_IF_ERROR(ta->Write(index, ctx.input(2), rerun_));
    SetFlow(ctx, 0);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  const bool rerun_;
};

class TensorArrayReadOp : public OpKernel {
 public:
  explicit TensorArrayReadOp(OpKernelConstruction& c) : OpKernel(c), rerun_(Rerun(c)) { c.GetAttr("dtype", &dtype_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx));
    if (ta->dtype() != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat("TensorArray dtype is ", TfName(ta->dtype()),
                                                     " but Op requested dtype ", TfName(dtype_), "."));
    }
    TW_ASSIGN_OR_RETURN(int64_t index, ScalarIndex(ctx, 1));
    TW_ASSIGN_OR_RETURN(Tensor value, ta->Read(index, rerun_));
    ctx.set_output(0, std::move(value));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  DType dtype_ = DType::kFloat;
  const bool rerun_;
};

// Reads `indices` and stacks them; with zero indices the element shape must be known.
absl::StatusOr<Tensor> GatherRows(TensorArray& ta, absl::Span<const int32_t> indices, bool rerun,
                                  const PartialShape& declared) {
  std::vector<Tensor> parts;
  for (int32_t i : indices) {
    TW_ASSIGN_OR_RETURN(Tensor part, ta.Read(i, rerun));
    if (!parts.empty() && part.shape() != parts[0].shape()) {
      return absl::InvalidArgumentError(absl::StrCat("TensorArray ", ta.name(),
                                                     ": Could not read from TensorArray index ", i,
                                                     ".  Expected shape ", parts[0].shape().DebugString(),
                                                     " but got ", part.shape().DebugString(), "."));
    }
    parts.push_back(std::move(part));
  }
  TensorShape shape;
  if (parts.empty()) {
    TW_ASSIGN_OR_RETURN(PartialShape element, ta.element_shape().Merge(declared));
    if (!element.IsFullyDefined()) {
      return absl::UnimplementedError(absl::StrCat(
          "TensorArray has size zero, but element shape ", element.DebugString(),
          " is not fully defined. Currently only static shapes are supported when packing zero-size TensorArrays."));
    }
    shape = *element.ToTensorShape();
  } else {
    shape = parts[0].shape();
  }
  shape.InsertDim(0, static_cast<int64_t>(parts.size()));
  return Join(ta.dtype(), parts, shape);
}

class TensorArrayGatherOp : public OpKernel {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction& c) : OpKernel(c), rerun_(Rerun(c)) {
    c.GetAttr("dtype", &dtype_);
    c.GetAttr("element_shape", &element_shape_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx));
    if (ta->dtype() != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat("TensorArray dtype is ", TfName(ta->dtype()),
                                                     " but Op requested dtype ", TfName(dtype_), "."));
    }
    const Tensor& indices = ctx.input(1);
    if (indices.dtype() != DType::kInt32 || indices.rank() != 1) {
      return absl::InvalidArgumentError("indices must be an int32 vector, got shape " + indices.shape().DebugString());
    }
    TW_ASSIGN_OR_RETURN(Tensor out, GatherRows(*ta, indices.flat<int32_t>(), rerun_, element_shape_));
    ctx.set_output(0, std::move(out));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  DType dtype_ = DType::kFloat;
  PartialShape element_shape_;
  const bool rerun_;
};

class TensorArrayScatterOp : public OpKernel {
 public:
  explicit TensorArrayScatterOp(OpKernelConstruction& c) : OpKernel(c), rerun_(Rerun(c)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx));
    const Tensor& indices = ctx.input(1);
    const Tensor& value = ctx.input(2);
    if (indices.dtype() != DType::kInt32 || indices.rank() != 1) {
      return absl::InvalidArgumentError("indices must be an int32 vector, got shape " + indices.shape().DebugString());
    }
    if (value.rank() < 1 || value.dim(0) != indices.NumElements()) {
      return absl::InvalidArgumentError(absl::StrCat("Expected len(indices) == values.shape[0], but saw: ",
                                                     indices.NumElements(), " vs. ",
                                                     value.rank() < 1 ? 0 : value.dim(0)));
    }
    if (value.dtype() != ta->dtype()) {
      return absl::InvalidArgumentError(absl::StrCat("TensorArray dtype is ", TfName(ta->dtype()),
                                                     " but Op is trying to write dtype ", TfName(value.dtype()), "."));
    }
    auto ids = indices.flat<int32_t>();
    int64_t max_index = -1;
    for (int32_t i : ids) max_index = std::max<int64_t>(max_index, i);
    if (!ta->dynamic_size() && max_index >= ta->Size()) {
      return absl::InvalidArgumentError(absl::StrCat("Max scatter index must be < array size (", max_index, " vs. ",
                                                     ta->Size(), ")"));
    }
    for (size_t k = 0; k < ids.size(); ++k) {
      TW_ASSIGN_OR_RETURN(Tensor row, Rows(value, k, 1));
      TensorShape element = row.shape();
      element.RemoveDim(0);
      TW_ASSIGN_OR_RETURN(row, row.Reshaped(element));
      TW_RETURN_IF_ERROR(ta->Write(ids[k], row, rerun_));
    }
    SetFlow(ctx, 0);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  const bool rerun_;
};

class TensorArrayConcatOp : public OpKernel {
 public:
  explicit TensorArrayConcatOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("dtype", &dtype_);
    c.GetAttr("element_shape_except0", &rest_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx));
    if (ta->dtype() != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat("TensorArray dtype is ", TfName(ta->dtype()),
                                                     " but Op requested dtype ", TfName(dtype_), "."));
    }
    const int64_t size = ta->Size();
    std::vector<Tensor> parts;
    std::vector<int64_t> lengths;
    int64_t total = 0;
    for (int64_t i = 0; i < size; ++i) {
      TW_ASSIGN_OR_RETURN(Tensor part, ta->Read(i, false));
      if (part.rank() < 1) {
        return absl::InvalidArgumentError(absl::StrCat("Concat saw a scalar shape at index ", i,
                                                       " but requires at least vectors.  Did you mean to call stack?"));
      }
      if (!parts.empty()) {
        for (int d = 1; d < std::max(part.rank(), parts[0].rank()); ++d) {
          if (part.rank() != parts[0].rank() || part.dim(d) != parts[0].dim(d)) {
            return absl::InvalidArgumentError(absl::StrCat(
                "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: ",
                parts[0].shape().DebugString(), " but index ", i, " has shape: ", part.shape().DebugString()));
          }
        }
      }
      lengths.push_back(part.dim(0));
      total += part.dim(0);
      parts.push_back(std::move(part));
    }
    TensorShape shape;
    if (parts.empty()) {
      if (!rest_.IsFullyDefined()) {
        return absl::UnimplementedError(absl::StrCat(
            "TensorArray has size zero, but element_shape_except0 ", rest_.DebugString(),
            " is not fully defined. Currently only static shapes are supported when concatenating zero-size "
            "TensorArrays."));
      }
      shape = *rest_.ToTensorShape();
      shape.InsertDim(0, 0);
    } else {
      shape = parts[0].shape();
      shape.set_dim(0, total);
    }
    TW_ASSIGN_OR_RETURN(Tensor out, Join(dtype_, parts, shape));
    ctx.set_output(0, std::move(out));
    TW_ASSIGN_OR_RETURN(Tensor lens, Tensor::FromVector<int64_t>(lengths, TensorShape({static_cast<int64_t>(lengths.size())})));
    ctx.set_output(1, std::move(lens));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  DType dtype_ = DType::kFloat;
  PartialShape rest_;
};

class TensorArraySplitOp : public OpKernel {
 public:
  explicit TensorArraySplitOp(OpKernelConstruction& c) : OpKernel(c), rerun_(Rerun(c)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx));
    const Tensor& value = ctx.input(1);
    const Tensor& lengths = ctx.input(2);
    if (value.dtype() != ta->dtype()) {
      return absl::InvalidArgumentError(absl::StrCat("TensorArray dtype is ", TfName(ta->dtype()),
                                                     " but Op is trying to write dtype ", TfName(value.dtype()), "."));
    }
    if (value.rank() < 1) {
      return absl::InvalidArgumentError("Expected value to be at least a vector, but received shape: " +
                                        value.shape().DebugString());
    }
    if (lengths.dtype() != DType::kInt64 || lengths.rank() != 1) {
      return absl::InvalidArgumentError("Expected lengths to be a vector, received shape: " +
                                        lengths.shape().DebugString());
    }
    int64_t sum = 0;
    for (int64_t n : lengths.flat<int64_t>()) {
      if (n < 0) return absl::InvalidArgumentError(absl::StrCat("Expected lengths to be >= 0, saw ", n));
      sum += n;
    }
    if (sum != value.dim(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is ", sum,
          " and value's shape is: ", value.shape().DebugString()));
    }
    const int64_t count = lengths.NumElements();  // A piece past a fixed size: Write says so, as TF.
    int64_t begin = 0;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t n = lengths.flat<int64_t>()[i];
      TW_ASSIGN_OR_RETURN(Tensor piece, Rows(value, begin, n));
      TW_RETURN_IF_ERROR(ta->Write(i, piece, rerun_));
      begin += n;
    }
    SetFlow(ctx, 0);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  const bool rerun_;
};

class TensorArraySizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx));
    TW_RETURN_IF_ERROR(ta->CheckOpenLocked());
    ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(ta->Size())));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

class TensorArrayCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx));
    ta->Close();  // Later ops on the handle say "has already been closed", as TF's do.
    return ctx.resource_mgr()->Delete(ctx.input(0).resource().container, ta->name());
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

void RegisterTensorArrayKernels(KernelRegistry& r) {
  r.Register("TensorArrayV3", kDeviceCpu, Factory<TensorArrayOp>());
  r.Register("TensorArrayGradV3", kDeviceCpu, Factory<TensorArrayGradOp>());
  r.Register("TensorArrayWriteV3", kDeviceCpu, Factory<TensorArrayWriteOp>());
  r.Register("TensorArrayReadV3", kDeviceCpu, Factory<TensorArrayReadOp>());
  r.Register("TensorArrayGatherV3", kDeviceCpu, Factory<TensorArrayGatherOp>());
  r.Register("TensorArrayScatterV3", kDeviceCpu, Factory<TensorArrayScatterOp>());
  r.Register("TensorArrayConcatV3", kDeviceCpu, Factory<TensorArrayConcatOp>());
  r.Register("TensorArraySplitV3", kDeviceCpu, Factory<TensorArraySplitOp>());
  r.Register("TensorArraySizeV3", kDeviceCpu, Factory<TensorArraySizeOp>());
  r.Register("TensorArrayCloseV3", kDeviceCpu, Factory<TensorArrayCloseOp>());
}

}  // namespace tw
