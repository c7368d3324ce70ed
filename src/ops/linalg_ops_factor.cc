// Matrix factorizations on batches of matrices (the last two dims): Qr, Svd,
// SelfAdjointEigV2 and Lu, with TensorFlow's names, attrs and output shapes. P = min(M, N).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

bool BoolAttr(const InferenceContext& c, const char* name, bool fallback) {
  auto v = GetBoolAttr(c.attrs(), name);
  return v.ok() ? *v : fallback;
}

// The batch dims of input 0 followed by `tail`; unknown rank stays unknown.
PartialShape BatchWith(const PartialShape& s, std::initializer_list<int64_t> tail) {
  if (!s.known_rank()) return PartialShape::UnknownRank();
  DimVector dims(s.dims().begin(), s.dims().end() - 2);
  dims.insert(dims.end(), tail.begin(), tail.end());
  return PartialShape(dims);
}

int64_t MinDim(int64_t a, int64_t b) { return a < 0 || b < 0 ? -1 : std::min(a, b); }

// input [..., M, N] -> q [..., M, full ? M : P], r [..., full ? M : P, N].
absl::Status QrShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(0, 2));
  const PartialShape& s = c.input_shape(0);
  const bool full = BoolAttr(c, "full_matrices", false);
  const int64_t m = s.known_rank() ? s.dim(s.rank() - 2) : -1, n = s.known_rank() ? s.dim(s.rank() - 1) : -1;
  const int64_t k = full ? m : MinDim(m, n);
  c.set_output(0, BatchWith(s, {m, k}));
  c.set_output(1, BatchWith(s, {k, n}));
  return absl::OkStatus();
}

// input [..., M, N] -> s [..., P]; with compute_uv u [..., M, full ? M : P] and
// v [..., N, full ? N : P], else u and v are [0].
absl::Status SvdShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(0, 2));
  const PartialShape& s = c.input_shape(0);
  const bool full = BoolAttr(c, "full_matrices", false);
  const int64_t m = s.known_rank() ? s.dim(s.rank() - 2) : -1, n = s.known_rank() ? s.dim(s.rank() - 1) : -1;
  const int64_t p = MinDim(m, n);
  if (s.known_rank()) {
    DimVector dims(s.dims().begin(), s.dims().end() - 2);
    dims.push_back(p);
    c.set_output(0, PartialShape(dims));
  } else {
    c.set_output(0, PartialShape::UnknownRank());
  }
  if (BoolAttr(c, "compute_uv", true)) {
    c.set_output(1, BatchWith(s, {m, full ? m : p}));
    c.set_output(2, BatchWith(s, {n, full ? n : p}));
  } else {
    c.set_output(1, PartialShape(DimVector{0}));
    c.set_output(2, PartialShape(DimVector{0}));
  }
  return absl::OkStatus();
}

// input [..., N, N] -> e [..., N], v [..., N, N] (or [0] without compute_v).
absl::Status EigShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(0, 2));
  const PartialShape& s = c.input_shape(0);
  int64_t n = -1;
  if (s.known_rank()) {
    const int64_t a = s.dim(s.rank() - 2), b = s.dim(s.rank() - 1);
    if (a >= 0 && b >= 0 && a != b) {
      return absl::InvalidArgumentError(absl::StrCat("Dimensions must be equal, but are ", a, " and ", b));
    }
    n = a >= 0 ? a : b;
    DimVector dims(s.dims().begin(), s.dims().end() - 2);
    dims.push_back(n);
    c.set_output(0, PartialShape(dims));
  } else {
    c.set_output(0, PartialShape::UnknownRank());
  }
  c.set_output(1, BoolAttr(c, "compute_v", true) ? BatchWith(s, {n, n}) : PartialShape(DimVector{0}));
  return absl::OkStatus();
}

// input [..., N, N] -> lu [..., N, N], p [..., N].
absl::Status LuShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(0, 2));
  const PartialShape& s = c.input_shape(0);
  if (!s.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    c.set_output(1, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  const int64_t a = s.dim(s.rank() - 2), b = s.dim(s.rank() - 1);
  if (a >= 0 && b >= 0 && a != b) {
    return absl::InvalidArgumentError(absl::StrCat("Dimensions must be equal, but are ", a, " and ", b));
  }
  const int64_t n = a >= 0 ? a : b;
  c.set_output(0, BatchWith(s, {n, n}));
  DimVector dims(s.dims().begin(), s.dims().end() - 2);
  dims.push_back(n);
  c.set_output(1, PartialShape(dims));
  return absl::OkStatus();
}

}  // namespace

void RegisterLinalgFactorOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Qr")
                 .Input("input: T")
                 .Output("q: T")
                 .Output("r: T")
                 .Attr("full_matrices: bool = false")
                 .Attr("T: {float64, float32}")
                 .SetShapeFn(QrShape));
  r.Register(OpDefBuilder("Svd")
                 .Input("input: T")
                 .Output("s: T")
                 .Output("u: T")
                 .Output("v: T")
                 .Attr("compute_uv: bool = true")
                 .Attr("full_matrices: bool = false")
                 .Attr("T: {float64, float32}")
                 .SetShapeFn(SvdShape));
  r.Register(OpDefBuilder("SelfAdjointEigV2")
                 .Input("input: T")
                 .Output("e: T")
                 .Output("v: T")
                 .Attr("compute_v: bool = true")
                 .Attr("T: {float64, float32}")
                 .SetShapeFn(EigShape));
  r.Register(OpDefBuilder("Lu")
                 .Input("input: T")
                 .Output("lu: T")
                 .Output("p: output_idx_type")
                 .Attr("T: {float64, float32}")
                 .Attr("output_idx_type: {int32, int64} = int32")
                 .SetShapeFn(LuShape));
}

}  // namespace tw
