// Matrix functions on batches of square matrices (the last two dims): MatrixInverse,
// MatrixDeterminant, LogMatrixDeterminant, MatrixSquareRoot, Cholesky, MatrixSolve, MatrixTriangularSolve,
// with TensorFlow's names, attrs and shape checks.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// Input i must be a batch of square matrices when its shape is known.
absl::Status CheckSquare(const InferenceContext& c, int i) {
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(i, 2));
  const PartialShape& s = c.input_shape(i);
  if (!s.known_rank()) return absl::OkStatus();
  const int64_t m = s.dim(s.rank() - 2), n = s.dim(s.rank() - 1);
  if (m >= 0 && n >= 0 && m != n) {
    return absl::InvalidArgumentError(absl::StrCat("Dimensions must be equal, but are ", m, " and ", n));
  }
  return absl::OkStatus();
}

absl::Status SquareShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(CheckSquare(c, 0));
  return UnchangedShape(c);
}

// Every output is the batch shape (the matrices' leading dims).
absl::Status BatchShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(CheckSquare(c, 0));
  const PartialShape& s = c.input_shape(0);
  const PartialShape out = s.known_rank() ? PartialShape(s.dims().subspan(0, s.rank() - 2))
                                          : PartialShape::UnknownRank();
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, out);
  return absl::OkStatus();
}

// matrix [..., M, M] and rhs [..., M, K] with the same batch dims: the output is rhs's shape.
absl::Status SolveShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(CheckSquare(c, 0));
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(1, 2));
  const PartialShape& a = c.input_shape(0);
  const PartialShape& b = c.input_shape(1);
  if (a.known_rank() && b.known_rank()) {
    const int64_t m = a.dim(a.rank() - 1), mb = b.dim(b.rank() - 2);
    if (m >= 0 && mb >= 0 && m != mb) {
      return absl::InvalidArgumentError(absl::StrCat("Dimensions must be equal, but are ", m, " and ", mb));
    }
    if (a.rank() != b.rank()) {
      return absl::InvalidArgumentError(absl::StrCat("Shape must be rank ", a.rank(), " but is rank ", b.rank()));
    }
    DimVector dims(b.dims().begin(), b.dims().end());
    for (int d = 0; d < a.rank() - 2; ++d) {
      if (dims[d] < 0) dims[d] = a.dim(d);
      if (a.dim(d) >= 0 && dims[d] != a.dim(d)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Dimensions must be equal, but are ", a.dim(d), " and ", dims[d]));
      }
    }
    if (dims[b.rank() - 2] < 0) dims[b.rank() - 2] = m;
    c.set_output(0, PartialShape(dims));
    return absl::OkStatus();
  }
  c.set_output(0, b);
  return absl::OkStatus();
}

}  // namespace

void RegisterLinalgDecompOps(OpRegistry& r) {
  r.Register(OpDefBuilder("MatrixInverse")
                 .Input("input: T")
                 .Output("output: T")
                 .Attr("adjoint: bool = false")
                 .Attr("T: {float64, float32}")
                 .SetShapeFn(SquareShape));
  r.Register(OpDefBuilder("MatrixSquareRoot")
                 .Input("input: T")
                 .Output("output: T")
                 .Attr("T: {float64, float32, complex64, complex128}")
                 .SetShapeFn(SquareShape));
  r.Register(OpDefBuilder("Cholesky")
                 .Input("input: T")
                 .Output("output: T")
                 .Attr("T: {float64, float32}")
                 .SetShapeFn(SquareShape));
  r.Register(OpDefBuilder("MatrixDeterminant")
                 .Input("input: T")
                 .Output("output: T")
                 .Attr("T: {float32, float64}")
                 .SetShapeFn(BatchShape));
  r.Register(OpDefBuilder("LogMatrixDeterminant")
                 .Input("input: T")
                 .Output("sign: T")
                 .Output("log_abs_determinant: T")
                 .Attr("T: {float32, float64}")
                 .SetShapeFn(BatchShape));
  r.Register(OpDefBuilder("MatrixSolve")
                 .Input("matrix: T")
                 .Input("rhs: T")
                 .Output("output: T")
                 .Attr("adjoint: bool = false")
                 .Attr("T: {float64, float32}")
                 .SetShapeFn(SolveShape));
  r.Register(OpDefBuilder("MatrixTriangularSolve")
                 .Input("matrix: T")
                 .Input("rhs: T")
                 .Output("output: T")
                 .Attr("lower: bool = true")
                 .Attr("adjoint: bool = false")
                 .Attr("T: {float64, float32}")
                 .SetShapeFn(SolveShape));
}

}  // namespace tw
