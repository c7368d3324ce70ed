// Diagonals: Diag/DiagPart (a tensor's diagonal, any even rank), MatrixDiag,
// MatrixDiagPart and MatrixSetDiag (the main diagonal of each innermost matrix), and
// LinSpace, with TensorFlow's names, attrs and shape checks.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status DiagShape(InferenceContext& c) {
  const PartialShape& s = c.input_shape(0);
  if (!s.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  DimVector dims(s.dims().begin(), s.dims().end());
  dims.insert(dims.end(), s.dims().begin(), s.dims().end());
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status DiagPartShape(InferenceContext& c) {
  const PartialShape& s = c.input_shape(0);
  if (!s.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  if (s.rank() == 0 || s.rank() % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input must have even and non-zero rank, input rank is ", s.rank()));
  }
  const int k = s.rank() / 2;
  DimVector dims(k);
  for (int i = 0; i < k; ++i) {
    const int64_t a = s.dim(i), b = s.dim(i + k);
    if (a >= 0 && b >= 0 && a != b) {
      return absl::InvalidArgumentError(absl::StrCat("Dimensions must be equal, but are ", a, " and ", b));
    }
    dims[i] = a >= 0 ? a : b;
  }
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status MatrixDiagShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(0, 1));
  const PartialShape& s = c.input_shape(0);
  if (!s.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  DimVector dims(s.dims().begin(), s.dims().end());
  dims.push_back(s.dim(s.rank() - 1));
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status MatrixDiagPartShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(0, 2));
  const PartialShape& s = c.input_shape(0);
  if (!s.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  DimVector dims(s.dims().begin(), s.dims().end() - 2);
  const int64_t m = s.dim(s.rank() - 2), n = s.dim(s.rank() - 1);
  dims.push_back(m >= 0 && n >= 0 ? std::min(m, n) : -1);
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status MatrixSetDiagShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(0, 2));
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(1, 1));
  return UnchangedShape(c);
}

absl::Status LinSpaceShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 0));
  TW_RETURN_IF_ERROR(c.WithRank(1, 0));
  TW_RETURN_IF_ERROR(c.WithRank(2, 0));
  std::vector<int64_t> num;
  if (c.ConstantIntVector(2, &num) && num.size() == 1) {
    if (num[0] <= 0) return absl::InvalidArgumentError(absl::StrCat("Requires num > 0: ", num[0]));
    c.set_output(0, PartialShape({num[0]}));
  } else {
    c.set_output(0, PartialShape({-1}));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayDiagOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Diag")
                 .Input("diagonal: T")
                 .Output("output: T")
                 .Attr("T: {float32, float64, int32, int64}")
                 .SetShapeFn(DiagShape));
  r.Register(OpDefBuilder("DiagPart")
                 .Input("input: T")
                 .Output("diagonal: T")
                 .Attr("T: {float32, float64, int32, int64}")
                 .SetShapeFn(DiagPartShape));
  r.Register(OpDefBuilder("MatrixDiag")
                 .Input("diagonal: T")
                 .Output("output: T")
                 .Attr("T: {bool, float32, float64, int32, int64}")
                 .SetShapeFn(MatrixDiagShape));
  r.Register(OpDefBuilder("MatrixDiagPart")
                 .Input("input: T")
                 .Output("diagonal: T")
                 .Attr("T: {bool, float32, float64, int32, int64}")
                 .SetShapeFn(MatrixDiagPartShape));
  r.Register(OpDefBuilder("MatrixSetDiag")
                 .Input("input: T")
                 .Input("diagonal: T")
                 .Output("output: T")
                 .Attr("T: {bool, float32, float64, int32, int64}")
                 .SetShapeFn(MatrixSetDiagShape));
  r.Register(OpDefBuilder("LinSpace")
                 .Input("start: T")
                 .Input("stop: T")
                 .Input("num: Tidx")
                 .Output("output: T")
                 .Attr("T: {float32, float64}")
                 .Attr("Tidx: {int32, int64} = int32")
                 .SetShapeFn(LinSpaceShape));
}

}  // namespace tw
