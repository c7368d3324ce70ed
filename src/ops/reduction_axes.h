// Reduction axes shared by the reduction shape functions and kernels, so both accept the
// same axes and word errors the same way.
#ifndef TENSORWEAVE_SRC_OPS_REDUCTION_AXES_H_
#define TENSORWEAVE_SRC_OPS_REDUCTION_AXES_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace tw {

// Marks (*reduced)[d] for each axis, counting negative axes from the end; duplicates are
// reduced once. InvalidArgument names the axis and the rank when one is out of range.
inline absl::Status MarkReducedAxes(const std::vector<int64_t>& axes, int rank,
                                    std::vector<bool>* reduced) {
  reduced->assign(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid reduction dimension ", axis,
                                                     " for input with ", rank, " dimension(s)"));
    }
    (*reduced)[axis < 0 ? axis + rank : axis] = true;
  }
  return absl::OkStatus();
}

// The single axis of ArgMax/ArgMin, normalized to [0, rank).
inline absl::StatusOr<int> NormalizeArgAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid dimension ", axis, " for input with ",
                                                   rank, " dimension(s): must be in [", -rank, ", ",
                                                   rank, ")"));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_OPS_REDUCTION_AXES_H_
