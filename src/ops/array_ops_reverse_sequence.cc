// ReverseSequence: along seq_dim, the first seq_lengths[b] elements of each batch entry b
// (along batch_dim) reversed, the rest left as they are; TensorFlow's names and attrs.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {

void RegisterArrayReverseSequenceOps(OpRegistry& r) {
  r.Register(OpDefBuilder("ReverseSequence")
                 .Input("input: T")
                 .Input("seq_lengths: Tlen")
                 .Output("output: T")
                 .Attr("seq_dim: int")
                 .Attr("batch_dim: int = 0")
                 .Attr("T: {bool, float32, float64, int32, int64}")
                 .Attr("Tlen: {int32, int64} = int64")
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRank(1, 1));
                   TW_ASSIGN_OR_RETURN(int64_t seq_dim, GetIntAttr(c.attrs(), "seq_dim"));
                   TW_ASSIGN_OR_RETURN(int64_t batch_dim, GetIntAttr(c.attrs(), "batch_dim"));
                   const PartialShape& s = c.input_shape(0);
                   if (s.known_rank()) {
                     if (seq_dim == batch_dim || seq_dim < 0 || batch_dim < 0 || seq_dim >= s.rank() ||
                         batch_dim >= s.rank()) {
                       return absl::InvalidArgumentError(absl::StrCat("Invalid seq_dim ", seq_dim, " and batch_dim ",
                                                                      batch_dim, " for input of rank ", s.rank()));
                     }
                   }
                   return UnchangedShape(c);
                 }));
}

}  // namespace tw
