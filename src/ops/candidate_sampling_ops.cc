// Candidate samplers, TensorFlow's signature: true_classes [batch, num_true] int64 ->
// sampled_candidates [num_sampled] int64, true_expected_count [batch, num_true] float,
// sampled_expected_count [num_sampled] float. Stateful: each node owns a generator
// seeded from (seed, seed2).
#include "ops/candidate_sampling_ops.h"

#include "graph/attr_value.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status CandidateSamplerShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(int64_t num_true, GetIntAttr(c.attrs(), "num_true"));
  TW_ASSIGN_OR_RETURN(int64_t num_sampled, GetIntAttr(c.attrs(), "num_sampled"));
  TW_RETURN_IF_ERROR(c.WithRank(0, 2));
  // As TensorFlow's, the columns are checked when the kernel runs.
  const PartialShape& t = c.input_shape(0);
  const int64_t batch = t.known_rank() ? t.dim(0) : -1;
  c.set_output(0, PartialShape({num_sampled}));
  c.set_output(1, PartialShape({batch, num_true}));
  c.set_output(2, PartialShape({num_sampled}));
  return absl::OkStatus();
}

OpDefBuilder CandidateSamplerOp(const char* name) {
  return OpDefBuilder(name)
      .Input("true_classes: int64")
      .Output("sampled_candidates: int64")
      .Output("true_expected_count: float")
      .Output("sampled_expected_count: float")
      .Attr("num_true: int >= 1")
      .Attr("num_sampled: int >= 1")
      .Attr("unique: bool")
      .Attr("range_max: int >= 1")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .SetStateful()
      .SetShapeFn(CandidateSamplerShape);
}

}  // namespace

void RegisterCandidateSamplingOps(OpRegistry& r) {
  r.Register(CandidateSamplerOp("LogUniformCandidateSampler"));
  r.Register(CandidateSamplerOp("UniformCandidateSampler"));
}

}  // namespace tw
