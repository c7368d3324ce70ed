// TensorFlow's SparseConditionalAccumulator: sums IndexedSlices gradients (indices, rows)
// of one variable across replicas by index. Each gradient's rows are first summed per
// distinct index, then added to the accumulated rows of that index; a take returns the
// indices in increasing order with, for MEAN, each row divided by the number of gradients
// that touched its index (TensorFlow's element-wise average). TensorFlow merges assuming
// sorted indices without duplicates; for such gradients the results are the same.
#ifndef TENSORWEAVE_SRC_KERNELS_SPARSE_CONDITIONAL_ACCUMULATOR_H_
#define TENSORWEAVE_SRC_KERNELS_SPARSE_CONDITIONAL_ACCUMULATOR_H_

#include <memory>
#include <string>
#include <vector>

#include "kernels/conditional_accumulator.h"

namespace tw {

class SparseConditionalAccumulatorResource : public AccumulatorBase {
 public:
  static absl::StatusOr<std::shared_ptr<SparseConditionalAccumulatorResource>> Create(
      std::string name, DType dtype, PartialShape shape, const std::string& reduction_type);
  std::string TypeName() const override { return "SparseConditionalAccumulator"; }

  // Adds the gradient (int64 `indices` [n], `values` [n, ...], and when `dense_shape` is
  // not null the int64 shape of the whole gradient) unless local_step is stale.
  // InvalidArgument, with TensorFlow's texts, for shapes that disagree with each other,
  // with the declared shape or with the rows accumulated, and for an index out of range.
  absl::Status ApplyGradient(int64_t local_step, const Tensor& indices, const Tensor& values,
                             const Tensor* dense_shape);

 private:
  using AccumulatorBase::AccumulatorBase;
  absl::Status Validate(const Tensor& indices, const Tensor& values, const Tensor* dense_shape) const;
  // Under mu_: checks the rows against those accumulated, then adds them.
  absl::Status AddLocked(const Tensor& indices, const Tensor& values) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<Tensor> TakeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) override;

  // The accumulation: distinct indices in increasing order, their summed rows
  // ([ids_.size(), ...]; uninitialized while nothing is accumulated) and how many
  // gradients touched each.
  std::vector<int64_t> ids_ ABSL_GUARDED_BY(mu_);
  Tensor rows_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> counts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_SPARSE_CONDITIONAL_ACCUMULATOR_H_
