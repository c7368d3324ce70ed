// Stateful random ops: each node owns a generator seeded from its (seed, seed2) attrs.
#include "absl/strings/str_cat.h"
#include "ops/candidate_sampling_ops.h"
#include "ops/ops.h"
#include "ops/random_shape.h"
#include "tensorweave/status.h"

namespace tw {

absl::Status RandomShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 1));
  std::vector<int64_t> dims;
  if (c.ConstantIntVector(0, &dims)) {
    auto shape = TensorShape::Build(dims);
    if (!shape.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("shape: ", shape.status().message()));
    }
    c.set_output(0, *shape);
    return absl::OkStatus();
  }
  const PartialShape& s = c.input_shape(0);
  if (s.known_rank() && s.dim(0) >= 0) {
    if (s.dim(0) > kMaxRank) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape has ", s.dim(0), " dimensions, more than the limit of ", kMaxRank));
    }
    c.set_output(0, PartialShape::Unknown(static_cast<int>(s.dim(0))));
  } else {
    c.set_output(0, PartialShape::UnknownRank());
  }
  return absl::OkStatus();
}

namespace {

// True when input i is a Const scalar; its value (int32 or int64) goes to *out.
bool ConstScalar(const InferenceContext& c, int i, int64_t* out) {
  const Tensor* t = c.input_tensor(i);
  if (t == nullptr || t->NumElements() != 1) return false;
  if (t->dtype() == DType::kInt32) {
    *out = t->flat<int32_t>()[0];
    return true;
  }
  if (t->dtype() == DType::kInt64) {
    *out = t->flat<int64_t>()[0];
    return true;
  }
  return false;
}

absl::Status RandomUniformIntShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(RandomShape(c));
  TW_RETURN_IF_ERROR(c.WithRank(1, 0));
  TW_RETURN_IF_ERROR(c.WithRank(2, 0));
  int64_t lo, hi;
  // Drawing zero values from an empty range is fine (as in TensorFlow).
  if (ConstScalar(c, 1, &lo) && ConstScalar(c, 2, &hi) && lo >= hi &&
      c.output(0).num_elements() > 0) {
    return absl::InvalidArgumentError(absl::StrCat("need minval < maxval, got ", lo, " >= ", hi));
  }
  return absl::OkStatus();
}

OpDefBuilder RandomFloatOp(const char* name) {
  return OpDefBuilder(name)
      .Input("shape: T")
      .Output("output: dtype")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .Attr("dtype: {float32, float64}")
      .Attr("T: {int32, int64}")
      .SetStateful()
      .SetShapeFn(RandomShape);
}

}  // namespace

void RegisterRandomOps(OpRegistry& r) {
  r.Register(RandomFloatOp("RandomUniform"));
  r.Register(RandomFloatOp("RandomStandardNormal"));
  // Normal values, redrawn until within two standard deviations.
  r.Register(RandomFloatOp("TruncatedNormal"));
  r.Register(OpDefBuilder("RandomUniformInt")
                 .Input("shape: T")
                 .Input("minval: Tout")
                 .Input("maxval: Tout")
                 .Output("output: Tout")
                 .Attr("seed: int = 0")
                 .Attr("seed2: int = 0")
                 .Attr("Tout: {int32, int64}")
                 .Attr("T: {int32, int64}")
                 .SetStateful()
                 .SetShapeFn(RandomUniformIntShape));
  RegisterCandidateSamplingOps(r);
}

}  // namespace tw
