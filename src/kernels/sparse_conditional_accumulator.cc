#include "kernels/sparse_conditional_accumulator.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"

namespace tw {
namespace {

// The rows of `values` summed per distinct index, indices increasing: (ids, rows).
template <typename T>
std::pair<std::vector<int64_t>, std::vector<T>> SumPerIndex(absl::Span<const int64_t> indices, const T* values,
                                                           int64_t row) {
  std::vector<int64_t> order(indices.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return indices[a] < indices[b]; });
  std::vector<int64_t> ids;
  std::vector<T> rows;
  for (int64_t i : order) {
    const T* src = values + i * row;
    if (ids.empty() || ids.back() != indices[i]) {
      ids.push_back(indices[i]);
      rows.insert(rows.end(), src, src + row);
    } else {
      T* dst = rows.data() + rows.size() - row;
      for (int64_t k = 0; k < row; ++k) dst[k] += src[k];
    }
  }
  return {std::move(ids), std::move(rows)};
}

// Merges the sorted (new_ids, new_rows) into the sorted accumulation (ids, rows, counts).
template <typename T>
void MergeInto(std::vector<int64_t>& ids, Tensor& rows, std::vector<int64_t>& counts,
               const std::vector<int64_t>& new_ids, const std::vector<T>& new_rows, int64_t row,
               const TensorShape& row_shape) {
  std::vector<int64_t> ids_out, counts_out;
  std::vector<T> rows_out;
  const T* old_rows = rows.IsInitialized() ? rows.data<T>() : nullptr;
  size_t i = 0, j = 0;
  while (i < ids.size() || j < new_ids.size()) {
    const bool take_old = j == new_ids.size() || (i < ids.size() && ids[i] <= new_ids[j]);
    const bool take_new = i == ids.size() || (j < new_ids.size() && new_ids[j] <= ids[i]);
    ids_out.push_back(take_old ? ids[i] : new_ids[j]);
    counts_out.push_back((take_old ? counts[i] : 0) + (take_new ? 1 : 0));
    const size_t at = rows_out.size();
    rows_out.resize(at + row, T(0));
    if (take_old) for (int64_t k = 0; k < row; ++k) rows_out[at + k] += old_rows[i * row + k];
    if (take_new) for (int64_t k = 0; k < row; ++k) rows_out[at + k] += new_rows[j * row + k];
    i += take_old;
    j += take_new;
  }
  TensorShape shape = row_shape;
  std::vector<int64_t> dims{static_cast<int64_t>(ids_out.size())};
  dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
  rows = Tensor(DTypeOf<T>::value, TensorShape(absl::MakeConstSpan(dims)));
  std::copy(rows_out.begin(), rows_out.end(), rows.data<T>());
  ids = std::move(ids_out);
  counts = std::move(counts_out);
}

}  // namespace

absl::StatusOr<std::shared_ptr<SparseConditionalAccumulatorResource>> SparseConditionalAccumulatorResource::Create(
    std::string name, DType dtype, PartialShape shape, const std::string& reduction_type) {
  TW_ASSIGN_OR_RETURN(Reduction reduction, CheckArgs("SparseConditionalAccumulator", name, dtype, reduction_type));
  return std::shared_ptr<SparseConditionalAccumulatorResource>(
      new SparseConditionalAccumulatorResource(std::move(name), dtype, std::move(shape), reduction));
}

absl::Status SparseConditionalAccumulatorResource::Validate(const Tensor& indices, const Tensor& values,
                                                            const Tensor* dense_shape) const {
  if (indices.dtype() != DType::kInt64 || indices.shape().rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("Input indices should be vector but received shape: ",
                                                   indices.shape().DebugString()));
  }
  if (values.dtype() != dtype_) {
    return absl::InvalidArgumentError(absl::StrCat("accumulator '", name_, "' holds ", DTypeName(dtype_),
                                                   " but the gradient is ", DTypeName(values.dtype())));
  }
  const int64_t nnz = indices.NumElements();
  if (values.shape().rank() == 0) return absl::InvalidArgumentError("Values cannot be 0-dimensional.");
  if (values.shape().dim(0) != nnz) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected ", nnz, " non-empty input values, got ", values.shape().dim(0)));
  }
  if (dense_shape != nullptr) {
    if (dense_shape->dtype() != DType::kInt64 || dense_shape->shape().rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("gradient_shape should be an int64 vector but received ",
                                                     DTypeName(dense_shape->dtype()), " ",
                                                     dense_shape->shape().DebugString()));
    }
    const absl::Span<const int64_t> given = dense_shape->flat<int64_t>();
    if (shape_.rank() > static_cast<int64_t>(given.size())) {
      return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: expected shape rank at least ", shape_.rank(),
                                                     ", got ", given.size()));
    }
    for (int i = 0; i < shape_.rank(); ++i) {
      if (shape_.dim(i) != -1 && shape_.dim(i) != given[i]) {
        return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: expected shape dim ", i, " to be ",
                                                       shape_.dim(i), ", got ", given[i]));
      }
    }
  }
  const absl::Span<const int64_t> ids = indices.flat<int64_t>();
  const int64_t limit = shape_.rank() > 0 ? shape_.dim(0) : -1;
  for (int64_t i = 0; i < nnz; ++i) {
    if (ids[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Shape mismatch: index of slice ", i, " is negative; index is ", ids[i]));
    }
    if (limit != -1 && ids[i] >= limit) {
      return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: index of slice ", i,
                                                     " exceeded limits of shape; index is ", ids[i], " exceeded ",
                                                     limit));
    }
  }
  if (shape_.rank() > values.shape().rank()) {
    return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: expected values rank at least ", shape_.rank(),
                                                   ", got ", values.shape().rank()));
  }
  for (int i = 1; i < shape_.rank(); ++i) {
    if (shape_.dim(i) != -1 && shape_.dim(i) != values.shape().dim(i)) {
      return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: expected values dim ", i, " to be ",
                                                     shape_.dim(i), ", got ", values.shape().dim(i)));
    }
  }
  return absl::OkStatus();
}

absl::Status SparseConditionalAccumulatorResource::ApplyGradient(int64_t local_step, const Tensor& indices,
                                                                 const Tensor& values, const Tensor* dense_shape) {
  TW_RETURN_IF_ERROR(Validate(indices, values, dense_shape));
  return Apply(local_step, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return AddLocked(indices, values); });
}

absl::Status SparseConditionalAccumulatorResource::AddLocked(const Tensor& indices, const Tensor& values) {
  if (rows_.IsInitialized()) {
    const TensorShape& have = rows_.shape();
    if (have.rank() != values.shape().rank()) {
      return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: expected values rank ", have.rank(), ", got ",
                                                     values.shape().rank()));
    }
    for (int i = 1; i < have.rank(); ++i) {
      if (have.dim(i) != values.shape().dim(i)) {
        return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: expected values dim ", i, " to be ",
                                                       have.dim(i), ", got ", values.shape().dim(i)));
      }
    }
  }
  TensorShape row_shape = values.shape();
  row_shape.RemoveDim(0);
  const int64_t row = row_shape.num_elements();
  // Through pointers taken under mu_: the generic lambda is analysed on its own.
  std::vector<int64_t>* ids = &ids_;
  Tensor* rows = &rows_;
  std::vector<int64_t>* counts = &counts_;
  VisitFloating(dtype_, [&](auto tag) {
    using T = TypeOf<decltype(tag)>;
    auto [new_ids, new_rows] = SumPerIndex<T>(indices.flat<int64_t>(), values.data<T>(), row);
    MergeInto<T>(*ids, *rows, *counts, new_ids, new_rows, row, row_shape);
  });
  return absl::OkStatus();
}

std::vector<Tensor> SparseConditionalAccumulatorResource::TakeLocked() {
  const int64_t n = static_cast<int64_t>(ids_.size());
  Tensor indices(DType::kInt64, TensorShape({n}));
  std::copy(ids_.begin(), ids_.end(), indices.data<int64_t>());
  Tensor values = std::move(rows_);
  if (reduction_ == Reduction::kMean && n > 0) {
    const int64_t row = values.NumElements() / n;
    const std::vector<int64_t>* counts = &counts_;  // As in AddLocked.
    VisitFloating(dtype_, [&](auto tag) {
      using T = TypeOf<decltype(tag)>;
      T* v = values.data<T>();
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t k = 0; k < row; ++k) v[i * row + k] /= static_cast<T>((*counts)[i]);
      }
    });
  }
  // The whole gradient's shape: the declared first dim (-1 when unknown), then the rows'.
  const int rank = values.shape().rank();
  Tensor shape(DType::kInt64, TensorShape({rank}));
  int64_t* s = shape.data<int64_t>();
  s[0] = shape_.rank() > 0 ? shape_.dim(0) : -1;
  for (int i = 1; i < rank; ++i) s[i] = values.shape().dim(i);
  ids_.clear();
  counts_.clear();
  rows_ = Tensor();
  return {std::move(indices), std::move(values), std::move(shape)};
}

}  // namespace tw
