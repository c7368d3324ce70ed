#include "kernels/cpu/cwise.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

namespace tw::cwise {

absl::Status IncompatibleShapesError(std::initializer_list<const TensorShape*> shapes) {
  std::string msg = "Incompatible shapes: ";
  bool first = true;
  for (const TensorShape* s : shapes) {
    absl::StrAppend(&msg, first ? "" : " vs. ", s->DebugString());
    first = false;
  }
  return absl::InvalidArgumentError(msg);
}

absl::Status MakeBroadcastPlan(std::initializer_list<const TensorShape*> shapes,
                               BroadcastPlan* plan) {
  const int n_in = static_cast<int>(shapes.size());
  if (n_in < 1 || n_in > kMaxBroadcastInputs) {
    return absl::InternalError(absl::StrCat("cannot broadcast ", n_in, " inputs"));
  }
  const TensorShape* in[kMaxBroadcastInputs];
  int rank = 0;
  for (int k = 0; k < n_in; ++k) {
    in[k] = shapes.begin()[k];
    rank = std::max(rank, in[k]->rank());
  }
  // Input k's size along output dim d (right-aligned; missing leading dims are 1).
  auto dim_of = [&](int k, int d) {
    const int i = in[k]->rank() - rank + d;
    return i >= 0 ? in[k]->dim(i) : int64_t{1};
  };

  DimVector out_dims(rank);
  for (int d = 0; d < rank; ++d) {
    int64_t size = 1;
    for (int k = 0; k < n_in; ++k) {
      const int64_t s = dim_of(k, d);
      if (s == 1) continue;
      if (size != 1 && s != size) return IncompatibleShapesError(shapes);
      size = s;
    }
    out_dims[d] = size;
  }
  TW_ASSIGN_OR_RETURN(plan->out_shape, TensorShape::Build(out_dims));
  plan->num_inputs = n_in;

  // Collapse: drop size-1 output dims, merge a dim into the previous kept one when every
  // input broadcasts (or not) along both.
  bool bcast[kMaxBroadcastInputs][kMaxRank];
  int r = 0;
  for (int d = 0; d < rank; ++d) {
    if (out_dims[d] == 1) continue;
    bool same = r > 0;
    for (int k = 0; k < n_in; ++k) {
      const bool b = dim_of(k, d) == 1;
      if (r > 0 && b != bcast[k][r - 1]) same = false;
      bcast[k][r] = b;
    }
    if (same) {
      plan->dims[r - 1] *= out_dims[d];
    } else {
      plan->dims[r++] = out_dims[d];
    }
  }
  if (r == 0) {  // Every dim is 1: a single element.
    plan->dims[0] = 1;
    for (int k = 0; k < n_in; ++k) bcast[k][0] = false;
    r = 1;
  }
  plan->rank = r;
  for (int k = 0; k < n_in; ++k) {
    int64_t stride = 1;
    for (int d = r - 1; d >= 0; --d) {
      plan->strides[k][d] = bcast[k][d] ? 0 : stride;
      if (!bcast[k][d]) stride *= plan->dims[d];
    }
  }
  return absl::OkStatus();
}

}  // namespace tw::cwise
