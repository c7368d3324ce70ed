#include "tensorweave/tensor_shape.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tw {

TensorShape::TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) { Recount(); }
TensorShape::TensorShape(absl::Span<const int64_t> dims) : dims_(dims.begin(), dims.end()) {
  Recount();
}

absl::StatusOr<TensorShape> TensorShape::Build(absl::Span<const int64_t> dims) {
  if (dims.size() > kMaxRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape has rank ", dims.size(), ", more than the limit of ", kMaxRank));
  }
  int64_t n = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape [", absl::StrJoin(dims, ","), "] has a negative dimension"));
    }
    if (d == 0) zero = true;
    // Overflow-safe product: saturate once past the limit (a zero dim may still follow).
    // n * d could overflow int64, so compare d with limit / n instead of multiplying first.
    if (zero || n > kMaxTensorElements) continue;
    n = (d > kMaxTensorElements / n) ? kMaxTensorElements + 1 : n * d;
  }
  if (!zero && n > kMaxTensorElements) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "shape [", absl::StrJoin(dims, ","), "] has more than ", kMaxTensorElements, " elements"));
  }
  return TensorShape(dims);
}

namespace {

// n * d for non-negative n and d, saturating at INT64_MAX: kernels build output shapes
// from run-time dims (MatMul of [2^40,0] by [0,2^40] asks for 2^80 elements) and a
// wrapped count could look small; a saturated one is refused by allocate_output.
int64_t SaturatingElements(int64_t n, int64_t d) {
  int64_t product;
  if (__builtin_mul_overflow(n, d, &product)) return std::numeric_limits<int64_t>::max();
  return product;
}

}  // namespace

void TensorShape::Recount() {
  // With a zero dim the other dims may be huge (Build allows [10^17,105,0]): their
  // product would overflow, so it is never formed.
  num_elements_ = 1;
  for (int64_t d : dims_) {
    if (d == 0) {
      num_elements_ = 0;
      return;
    }
  }
  for (int64_t d : dims_) num_elements_ = SaturatingElements(num_elements_, d);
}

void TensorShape::AddDim(int64_t size) {
  dims_.push_back(size);
  num_elements_ = SaturatingElements(num_elements_, size);
}
void TensorShape::InsertDim(int index, int64_t size) {
  dims_.insert(dims_.begin() + index, size);
  Recount();
}
void TensorShape::RemoveDim(int index) {
  dims_.erase(dims_.begin() + index);
  Recount();
}
void TensorShape::set_dim(int index, int64_t size) {
  dims_[index] = size;
  Recount();
}

std::string TensorShape::DebugString() const {
  return absl::StrCat("[", absl::StrJoin(dims_, ","), "]");
}

PartialShape::PartialShape(std::initializer_list<int64_t> dims) : known_rank_(true), dims_(dims) {}
PartialShape::PartialShape(absl::Span<const int64_t> dims)
    : known_rank_(true), dims_(dims.begin(), dims.end()) {}
PartialShape::PartialShape(const TensorShape& shape)
    : known_rank_(true), dims_(shape.dims().begin(), shape.dims().end()) {}

PartialShape PartialShape::Unknown(int rank) {
  PartialShape s;
  s.known_rank_ = true;
  s.dims_.assign(rank, -1);
  return s;
}

bool PartialShape::IsFullyDefined() const {
  if (!known_rank_) return false;
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

int64_t PartialShape::num_elements() const {
  if (!IsFullyDefined()) return -1;
  for (int64_t d : dims_)
    if (d == 0) return 0;
  // Saturates instead of overflowing: shapes from a GraphDef attr are unchecked.
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (n > std::numeric_limits<int64_t>::max() / d) return std::numeric_limits<int64_t>::max();
    n *= d;
  }
  return n;
}

absl::StatusOr<TensorShape> PartialShape::ToTensorShape() const {
  if (!IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat("shape ", DebugString(), " is not fully defined"));
  }
  return TensorShape::Build(dims_);
}

bool PartialShape::IsCompatibleWith(const PartialShape& other) const {
  if (!known_rank_ || !other.known_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) return false;
  }
  return true;
}

absl::StatusOr<PartialShape> PartialShape::Merge(const PartialShape& other) const {
  if (!IsCompatibleWith(other)) {
    return absl::InvalidArgumentError(absl::StrCat("shapes ", DebugString(), " and ",
                                                   other.DebugString(), " are incompatible"));
  }
  if (!known_rank_) return other;
  if (!other.known_rank_) return *this;
  PartialShape merged = *this;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (merged.dims_[i] < 0) merged.dims_[i] = other.dims_[i];
  }
  return merged;
}

std::string PartialShape::DebugString() const {
  if (!known_rank_) return "<unknown>";
  return absl::StrCat("[",
                      absl::StrJoin(dims_, ",",
                                    [](std::string* out, int64_t d) {
                                      absl::StrAppend(out, d < 0 ? "?" : absl::StrCat(d));
                                    }),
                      "]");
}

}  // namespace tw
