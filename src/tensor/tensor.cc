#include "tensorweave/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "tensor/block_cache.h"

namespace tw {
namespace {

constexpr size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }
constexpr size_t kHeaderBytes = RoundUp(sizeof(Buffer), kTensorAlignment);

// Strings are objects, not bytes: the buffer owns constructed std::strings and destroys
// them with the last reference (so it can never be a block of raw bytes).
Buffer* AllocateStrings(int64_t n) {
  auto* strings = new std::string[static_cast<size_t>(n)];
  return Buffer::Wrap(strings, static_cast<size_t>(n) * sizeof(std::string), [strings] { delete[] strings; });
}

Buffer* AllocateFor(DType dtype, const TensorShape& shape, size_t bytes) {
  if (dtype == DType::kString) return AllocateStrings(shape.num_elements());
  return Buffer::Allocate(bytes);
}

}  // namespace

Buffer* Buffer::Allocate(size_t bytes) {
  void* block = block_cache::Allocate(kTensorAlignment, kHeaderBytes + bytes);
  if (block == nullptr) throw std::bad_alloc();
  return new (block) Buffer(static_cast<char*>(block) + kHeaderBytes, bytes, /*inline_block=*/true);
}

Buffer* Buffer::Wrap(void* data, size_t bytes, std::function<void()> release) {
  Buffer* b = new Buffer(data, bytes, /*inline_block=*/false);
  b->release_ = std::move(release);
  return b;
}

void Buffer::Unref() const {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  Buffer* self = const_cast<Buffer*>(this);
  if (self->inline_block_) {
    const size_t bytes = kHeaderBytes + self->size_;
    self->~Buffer();
    block_cache::Free(self, bytes);
  } else {
    if (self->release_) self->release_();
    delete self;
  }
}

Tensor::Tensor(DType dtype, const TensorShape& shape)
    : dtype_(dtype), shape_(shape), buf_(AllocateFor(dtype, shape, TotalBytes())) {}

Tensor::Tensor(DType dtype, const TensorShape& shape, Buffer* buffer)
    : dtype_(dtype), shape_(shape), buf_(buffer) {
  if (buf_) buf_->Ref();
}

absl::StatusOr<Tensor> Tensor::Allocate(DType dtype, const TensorShape& shape) {
  if (dtype == DType::kInvalid || dtype == DType::kResource || dtype == DType::kVariant) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot allocate a tensor of dtype ", DTypeName(dtype)));
  }
  if (shape.num_elements() > kMaxTensorElements) {
    return absl::ResourceExhaustedError(
        absl::StrCat("tensor of shape ", shape.DebugString(), " is too large"));
  }
  try {
    return Tensor(dtype, shape);
  } catch (const std::bad_alloc&) {
    // A shape computed at run time (Fill, Zeros...) may ask for more than the machine
    // has: fail the step, not the process.
    return absl::ResourceExhaustedError(absl::StrCat("out of memory allocating a ", DTypeName(dtype), " tensor of shape ",
                                                     shape.DebugString(), " (", shape.num_elements() * DTypeSize(dtype),
                                                     " bytes)"));
  }
}

Tensor Tensor::Resource(ResourceHandle handle) {
  auto* h = new ResourceHandle(std::move(handle));
  Buffer* b = Buffer::Wrap(h, sizeof(ResourceHandle), [h] { delete h; });
  Tensor t(DType::kResource, TensorShape(), b);
  b->Unref();  // The tensor holds the only reference now.
  return t;
}

Tensor Tensor::Variant(VariantValue value) {
  auto* v = new VariantValue(std::move(value));
  Buffer* b = Buffer::Wrap(v, sizeof(VariantValue), [v] { delete v; });
  Tensor t(DType::kVariant, TensorShape(), b);
  b->Unref();
  return t;
}

absl::StatusOr<Tensor> Tensor::Reshaped(const TensorShape& shape) const {
  if (shape.num_elements() != NumElements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot reshape a tensor with ", NumElements(), " elements to shape ",
                     shape.DebugString(), " (", shape.num_elements(), " elements)"));
  }
  return Tensor(dtype_, shape, buf_);
}

Tensor Tensor::Copy() const {
  if (!IsInitialized()) return Tensor();
  if (dtype_ == DType::kResource) return Resource(resource());
  if (dtype_ == DType::kVariant) return Variant(variant());
  Tensor t(dtype_, shape_);
  if (dtype_ == DType::kString) {
    std::copy_n(data<std::string>(), NumElements(), t.data<std::string>());
    return t;
  }
  if (TotalBytes() > 0) std::memcpy(t.raw_data(), raw_data(), TotalBytes());
  return t;
}

bool Tensor::Equals(const Tensor& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  if (dtype_ == DType::kResource) return resource() == other.resource();
  if (dtype_ == DType::kVariant) return variant() == other.variant();
  if (dtype_ == DType::kString) return std::equal(data<std::string>(), data<std::string>() + NumElements(), other.data<std::string>());
  if (dtype_ == DType::kBool) {
    // Any non-zero byte is true.
    auto a = flat<bool>(), b = other.flat<bool>();
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  return TotalBytes() == 0 || std::memcmp(raw_data(), other.raw_data(), TotalBytes()) == 0;
}

namespace {

template <typename T>
void AppendValue(std::string* out, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    absl::StrAppend(out, v ? "True" : "False");
  } else if constexpr (std::is_same_v<T, std::string>) {
    absl::StrAppend(out, "\"", absl::CEscape(v), "\"");
  } else if constexpr (std::is_same_v<T, half>) {
    absl::StrAppend(out, static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    absl::StrAppend(out, "(", v.real(), v.imag() < 0 ? "-" : "+", std::abs(v.imag()), "j)");  // NumPy's form.
  } else if constexpr (sizeof(T) == 1) {
    absl::StrAppend(out, static_cast<int>(v));  // A number, not a character.
  } else {
    absl::StrAppend(out, v);
  }
}

// Appends the nested "[..]" rendering of dims [d, rank) starting at element *index.
template <typename T>
void AppendNested(std::string* out, const T* data, absl::Span<const int64_t> dims, int d,
                  int64_t* index, int64_t* budget) {
  if (d == static_cast<int>(dims.size())) {
    if (*budget > 0) AppendValue(out, data[*index]);
    ++*index;
    --*budget;
    return;
  }
  // Below an empty dim there are no values to count against the budget, so the empty
  // sub-arrays are counted instead: [1000000,1000000,0] must not print 10^12 "[]"s.
  bool empty_below = false;
  for (size_t k = d + 1; k < dims.size(); ++k) empty_below |= dims[k] == 0;
  out->push_back('[');
  for (int64_t i = 0; i < dims[d]; ++i) {
    if (*budget <= 0) {
      out->append("...");
      if (empty_below) break;
      int64_t rest = 1;
      for (size_t k = d + 1; k < dims.size(); ++k) rest *= dims[k];
      *index += (dims[d] - i) * rest;
      break;
    }
    if (i > 0) out->push_back(' ');
    AppendNested(out, data, dims, d + 1, index, budget);
    if (empty_below) --*budget;
  }
  out->push_back(']');
}

}  // namespace

std::string Tensor::ValueString(int max_entries) const {
  if (!IsInitialized()) return "<uninitialized>";
  if (dtype_ == DType::kResource) {
    const ResourceHandle& h = resource();
    return absl::StrCat("<resource ", h.container, "/", h.name, " on ", h.device, ">");
  }
  if (dtype_ == DType::kVariant) return absl::StrCat("<", variant().type_name, ">");
  std::string out;
  int64_t index = 0, budget = max_entries;
  if (dtype_ == DType::kString) {
    AppendNested(&out, data<std::string>(), shape_.dims(), 0, &index, &budget);
    return out;
  }
  VisitAllPod(dtype_, [&](auto tag) {
    using T = TypeOf<decltype(tag)>;
    AppendNested(&out, data<T>(), shape_.dims(), 0, &index, &budget);
  });
  return out;
}

std::string Tensor::DebugString(int max_entries) const {
  return absl::StrCat(DTypeName(dtype_), " ", shape_.DebugString(), " ", ValueString(max_entries));
}

}  // namespace tw
