// Tensor: a cheap handle (dtype, shape, shared buffer). Copying a Tensor shares its
// bytes; Copy() makes a deep copy. Buffers are ref-counted and 64-byte aligned.
#ifndef TENSORWEAVE_TENSOR_H_
#define TENSORWEAVE_TENSOR_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tensorweave/dtype.h"
#include "tensorweave/tensor_shape.h"

namespace tw {

inline constexpr size_t kTensorAlignment = 64;

// True when elements are plain bytes that memcpy may copy (not string, not resource).
inline bool IsPodDType(DType dtype) {
  return dtype != DType::kString && dtype != DType::kResource && dtype != DType::kVariant;
}

// Names a resource (a variable) in the ResourceMgr of a device.
struct ResourceHandle {
  std::string device;
  std::string container;
  std::string name;
  bool operator==(const ResourceHandle&) const = default;
};

// The value of a DT_VARIANT scalar: a shared immutable object of the runtime, tagged with
// its kind ("Dataset") so that a kernel checks what it holds before casting.
struct VariantValue {
  std::string type_name;
  std::shared_ptr<const void> object;
  bool operator==(const VariantValue& o) const { return object == o.object; }
};

// Ref-counted memory. Allocate() places the header and the data in one aligned block;
// Wrap() adopts memory owned elsewhere and calls `release` when the last ref goes.
class Buffer {
 public:
  static Buffer* Allocate(size_t bytes);
  static Buffer* Wrap(void* data, size_t bytes, std::function<void()> release);

  void* data() const { return data_; }
  size_t size() const { return size_; }
  void Ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() const;
  bool RefCountIsOne() const { return refs_.load(std::memory_order_acquire) == 1; }

 private:
  Buffer(void* data, size_t size, bool inline_block) : data_(data), size_(size), inline_block_(inline_block) {}
  ~Buffer() = default;
  void* data_;
  size_t size_;
  bool inline_block_;  // Header and data share one block from Allocate().
  mutable std::atomic<int32_t> refs_{1};
  std::function<void()> release_;  // Only for wrapped memory.
};

class Tensor {
 public:
  Tensor() = default;  // Not initialized: dtype() == kInvalid.
  // Allocates uninitialized storage; shape must already be valid (see TensorShape::Build).
  Tensor(DType dtype, const TensorShape& shape);
  // Shares `buffer` (takes one reference), which must hold shape's bytes.
  Tensor(DType dtype, const TensorShape& shape, Buffer* buffer);

  Tensor(const Tensor& other) : dtype_(other.dtype_), shape_(other.shape_), buf_(other.buf_) {
    if (buf_) buf_->Ref();
  }
  Tensor(Tensor&& other) noexcept
      : dtype_(other.dtype_), shape_(std::move(other.shape_)), buf_(other.buf_) {
    other.buf_ = nullptr;
    other.dtype_ = DType::kInvalid;
  }
  Tensor& operator=(const Tensor& other) {
    Tensor copy(other);
    Swap(copy);
    return *this;
  }
  Tensor& operator=(Tensor&& other) noexcept {
    Tensor moved(std::move(other));
    Swap(moved);
    return *this;
  }
  ~Tensor() {
    if (buf_) buf_->Unref();
  }
  void Swap(Tensor& other) noexcept {
    std::swap(dtype_, other.dtype_);
    std::swap(shape_, other.shape_);
    std::swap(buf_, other.buf_);
  }

  // Checks the element count against the limit before allocating.
  static absl::StatusOr<Tensor> Allocate(DType dtype, const TensorShape& shape);
  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DTypeOf<T>::value, TensorShape());
    *t.data<T>() = value;
    return t;
  }
  // Copies `values` into a new tensor of `shape` (whose element count must match).
  template <typename T>
  static absl::StatusOr<Tensor> FromVector(absl::Span<const T> values, const TensorShape& shape);
  template <typename T>
  static Tensor Vector(std::initializer_list<T> values) {
    Tensor t(DTypeOf<T>::value, TensorShape({static_cast<int64_t>(values.size())}));
    std::copy(values.begin(), values.end(), t.data<T>());
    return t;
  }
  static Tensor Resource(ResourceHandle handle);
  static Tensor Variant(VariantValue value);

  bool IsInitialized() const { return dtype_ != DType::kInvalid; }
  DType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t NumElements() const { return shape_.num_elements(); }
  size_t TotalBytes() const { return static_cast<size_t>(NumElements()) * DTypeSize(dtype_); }

  // For kString the buffer holds constructed std::string objects: copy them as strings,
  // never as bytes (IsPodDType says whether memcpy is right).
  void* raw_data() const { return buf_ ? buf_->data() : nullptr; }
  template <typename T>
  T* data() const {
    assert(DTypeOf<T>::value == dtype_);
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  absl::Span<T> flat() const {
    return absl::Span<T>(data<T>(), static_cast<size_t>(NumElements()));
  }
  template <typename T>
  T& scalar() const {
    assert(NumElements() == 1);
    return *data<T>();
  }
  const ResourceHandle& resource() const { return *data<ResourceHandle>(); }
  const VariantValue& variant() const { return *data<VariantValue>(); }

  // A tensor of `shape` sharing this one's bytes; element counts must match.
  absl::StatusOr<Tensor> Reshaped(const TensorShape& shape) const;
  // A deep copy with its own buffer.
  Tensor Copy() const;
  // True when nothing else refers to the buffer, so a kernel may write into it.
  bool RefCountIsOne() const { return buf_ != nullptr && buf_->RefCountIsOne(); }
  bool SharesBufferWith(const Tensor& other) const { return buf_ && buf_ == other.buf_; }
  Buffer* buffer() const { return buf_; }

  // Element-wise equality of dtype, shape and values.
  bool Equals(const Tensor& other) const;
  // "float32 [2,3] [[1 2 3] [4 5 6]]", showing at most max_entries values.
  std::string DebugString(int max_entries = 16) const;
  // Just the values, nested like NumPy prints them: "[[1 2 3] [4 5 6]]".
  std::string ValueString(int max_entries = 16) const;

 private:
  DType dtype_ = DType::kInvalid;
  TensorShape shape_;
  Buffer* buf_ = nullptr;
};

template <typename T>
absl::StatusOr<Tensor> Tensor::FromVector(absl::Span<const T> values, const TensorShape& shape) {
  if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
    return absl::InvalidArgumentError("FromVector: " + std::to_string(values.size()) +
                                      " values do not fill shape " + shape.DebugString());
  }
  Tensor t(DTypeOf<T>::value, shape);
  std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}

}  // namespace tw

#endif  // TENSORWEAVE_TENSOR_H_
