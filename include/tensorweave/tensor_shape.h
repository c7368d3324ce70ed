// Shapes: TensorShape is fully known (every dim >= 0); PartialShape may have an
// unknown rank or unknown dims (-1) and is what shape inference works with.
#ifndef TENSORWEAVE_TENSOR_SHAPE_H_
#define TENSORWEAVE_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace tw {

using DimVector = absl::InlinedVector<int64_t, 4>;

// Largest element count a single tensor may have (2^40); larger shapes are rejected
// before any allocation so a hostile GraphDef or feed cannot exhaust memory.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 40;
inline constexpr int kMaxRank = 32;

class TensorShape {
 public:
  TensorShape() = default;  // A scalar.
  // Dims must be valid; use Build() for dims from outside.
  TensorShape(std::initializer_list<int64_t> dims);
  explicit TensorShape(absl::Span<const int64_t> dims);

  // Validates dims (none negative, rank <= kMaxRank, element count <= kMaxTensorElements).
  static absl::StatusOr<TensorShape> Build(absl::Span<const int64_t> dims);

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  absl::Span<const int64_t> dims() const { return dims_; }
  // Saturates at INT64_MAX when unchecked dims multiply past it (never allocatable).
  int64_t num_elements() const { return num_elements_; }
  bool IsScalar() const { return dims_.empty(); }

  void AddDim(int64_t size);
  void InsertDim(int index, int64_t size);
  void RemoveDim(int index);
  void set_dim(int index, int64_t size);

  bool operator==(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator!=(const TensorShape& other) const { return !(*this == other); }

  // "[2,3]"; "[]" for a scalar.
  std::string DebugString() const;

 private:
  void Recount();
  DimVector dims_;
  int64_t num_elements_ = 1;
};

class PartialShape {
 public:
  PartialShape() = default;  // Unknown rank.
  PartialShape(std::initializer_list<int64_t> dims);
  explicit PartialShape(absl::Span<const int64_t> dims);  // -1 marks an unknown dim.
  PartialShape(const TensorShape& shape);                  // NOLINT: a known shape is partial too.

  static PartialShape UnknownRank() { return PartialShape(); }
  static PartialShape Unknown(int rank);  // Known rank, every dim unknown.

  bool known_rank() const { return known_rank_; }
  int rank() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t dim(int i) const { return dims_[i]; }
  absl::Span<const int64_t> dims() const { return dims_; }
  bool IsFullyDefined() const;
  // Product of dims, or -1 when anything is unknown.
  int64_t num_elements() const;
  absl::StatusOr<TensorShape> ToTensorShape() const;

  // True when some full shape fits both.
  bool IsCompatibleWith(const PartialShape& other) const;
  // Whether a concrete shape fits this partial one.
  bool Matches(const TensorShape& shape) const { return IsCompatibleWith(PartialShape(shape)); }
  // The most specific shape compatible with both; error when incompatible.
  absl::StatusOr<PartialShape> Merge(const PartialShape& other) const;

  bool operator==(const PartialShape& other) const {
    return known_rank_ == other.known_rank_ && dims_ == other.dims_;
  }
  bool operator!=(const PartialShape& other) const { return !(*this == other); }

  // "[2,?]"; "<unknown>" for an unknown rank.
  std::string DebugString() const;

 private:
  bool known_rank_ = false;
  DimVector dims_;
};

}  // namespace tw

#endif  // TENSORWEAVE_TENSOR_SHAPE_H_
