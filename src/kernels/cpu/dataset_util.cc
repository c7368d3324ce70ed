#include "kernels/cpu/dataset_util.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// Copies `n` elements of `from` starting at `src` to `to` starting at `dst`.
void CopyElements(const Tensor& from, int64_t src, Tensor* to, int64_t dst, int64_t n) {
  if (from.dtype() == DType::kString) {
    std::copy_n(from.data<std::string>() + src, n, to->data<std::string>() + dst);
    return;
  }
  const size_t size = DTypeSize(from.dtype());
  std::memcpy(static_cast<char*>(to->raw_data()) + dst * size, static_cast<const char*>(from.raw_data()) + src * size,
              n * size);
}

}  // namespace

absl::StatusOr<Tensor> TensorRow(const Tensor& t, int64_t i) {
  if (t.rank() == 0) return absl::InvalidArgumentError("cannot slice a scalar");
  TensorShape row_shape(t.shape().dims().subspan(1));
  TW_ASSIGN_OR_RETURN(Tensor row, Tensor::Allocate(t.dtype(), row_shape));
  const int64_t n = row_shape.num_elements();
  CopyElements(t, i * n, &row, 0, n);
  return row;
}

absl::StatusOr<Tensor> StackRows(const std::vector<Tensor>& rows, int component) {
  const TensorShape& first = rows[0].shape();
  for (size_t j = 1; j < rows.size(); ++j) {
    if (rows[j].shape() != first) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cannot batch tensors with different shapes in component ", component, ". First element had shape ",
          first.DebugString(), " and element ", j, " had shape ", rows[j].shape().DebugString(), "."));
    }
  }
  TensorShape shape = first;
  shape.InsertDim(0, static_cast<int64_t>(rows.size()));
  TW_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(rows[0].dtype(), shape));
  const int64_t n = first.num_elements();
  for (size_t j = 0; j < rows.size(); ++j) CopyElements(rows[j], 0, &out, static_cast<int64_t>(j) * n, n);
  return out;
}

absl::StatusOr<Tensor> StackPadded(const std::vector<Tensor>& rows, const TensorShape& shape, const Tensor& pad,
                                   int component) {
  TensorShape batch = shape;
  batch.InsertDim(0, static_cast<int64_t>(rows.size()));
  TW_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(rows[0].dtype(), batch));
  const int64_t per_row = shape.num_elements();
  for (int64_t k = 0; k < out.NumElements(); ++k) CopyElements(pad, 0, &out, k, 1);
  const int rank = shape.rank();
  for (size_t j = 0; j < rows.size(); ++j) {
    const Tensor& r = rows[j];
    if (r.rank() != rank) {
      return absl::InvalidArgumentError(absl::StrCat("component ", component, ": element ", j, " has rank ", r.rank(),
                                                     ", the padded shape ", rank));
    }
    // Copy each innermost run of the row into its padded place.
    const int64_t n = r.NumElements();
    if (n == 0) continue;
    const int64_t inner = rank == 0 ? 1 : r.dim(rank - 1);
    for (int64_t start = 0; start < n; start += inner) {
      int64_t rest = start, offset = 0, stride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t idx = rest % r.dim(d);
        rest /= r.dim(d);
        offset += idx * stride;
        stride *= shape.dim(d);
      }
      CopyElements(r, start, &out, static_cast<int64_t>(j) * per_row + offset, inner);
    }
  }
  return out;
}

}  // namespace tw
