#include "graph/shape_inference.h"

#include "absl/strings/str_cat.h"

namespace tw {

absl::Status InferenceContext::WithRank(int i, int rank) const {
  const PartialShape& s = input_shapes_[i];
  if (s.known_rank() && s.rank() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("input ", i, " must have rank ", rank,
                                                   " but has shape ", s.DebugString()));
  }
  return absl::OkStatus();
}

absl::Status InferenceContext::WithRankAtLeast(int i, int rank) const {
  const PartialShape& s = input_shapes_[i];
  if (s.known_rank() && s.rank() < rank) {
    return absl::InvalidArgumentError(absl::StrCat("input ", i, " must have rank at least ", rank,
                                                   " but has shape ", s.DebugString()));
  }
  return absl::OkStatus();
}

bool InferenceContext::ConstantIntVector(int i, std::vector<int64_t>* out) const {
  const Tensor* t = input_tensors_[i];
  if (t == nullptr || t->rank() > 1) return false;
  out->clear();
  if (t->dtype() == DType::kInt32) {
    for (int32_t v : t->flat<int32_t>()) out->push_back(v);
  } else if (t->dtype() == DType::kInt64) {
    for (int64_t v : t->flat<int64_t>()) out->push_back(v);
  } else {
    return false;
  }
  return true;
}

absl::Status UnchangedShape(InferenceContext& c) {
  c.set_output(0, c.input_shape(0));
  return absl::OkStatus();
}

absl::Status ScalarShape(InferenceContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape({}));
  return absl::OkStatus();
}

absl::Status UnknownShape(InferenceContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape::UnknownRank());
  return absl::OkStatus();
}

absl::StatusOr<PartialShape> BroadcastShapes(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank() || !b.known_rank()) return PartialShape::UnknownRank();
  const int rank = std::max(a.rank(), b.rank());
  DimVector dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a.dim(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da == 1) {
      dims[i] = db;
    } else if (db == 1) {
      dims[i] = da;
    } else if (da < 0 || db < 0) {
      dims[i] = std::max(da, db);  // The known one, if any; a mismatch surfaces at run time.
    } else if (da == db) {
      dims[i] = da;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("shapes ", a.DebugString(), " and ",
                                                     b.DebugString(), " cannot be broadcast"));
    }
  }
  return PartialShape(dims);
}

absl::Status BroadcastBinaryShape(InferenceContext& c) {
  auto s = BroadcastShapes(c.input_shape(0), c.input_shape(1));
  if (!s.ok()) return s.status();
  c.set_output(0, *s);
  return absl::OkStatus();
}

}  // namespace tw
