// tw::losses (include/tensorweave/layers.h): TF1's tf.losses with weights 1 and its default
// reduction (SUM_BY_NONZERO_WEIGHTS), which with unit weights is the mean.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "client/op_builder.h"
#include "tensorweave/layers.h"

namespace tw {
namespace losses {

Output softmax_cross_entropy(const Output& onehot_labels, const Output& logits, const std::string& name) {
  auto scope = logits.graph()->name_scope(name);
  // As TF1: the labels are constants of the loss (no gradient to them).
  Output labels = client::Op("StopGradient", "labels_stop_gradient", {cast(onehot_labels, logits.dtype())});
  return reduce_mean(softmax_cross_entropy_with_logits(labels, logits, "xentropy"), {}, false, "value");
}

Output sparse_softmax_cross_entropy(const Output& labels, const Output& logits, const std::string& name) {
  const PartialShape s = logits.shape();
  if (!s.known_rank() || s.rank() != 2 || s.dim(1) < 0) {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat(name, ": logits must be [batch, classes] with known classes, got ", s.DebugString())));
  }
  auto scope = logits.graph()->name_scope(name);
  // Against one_hot(labels): the same loss and gradient as the fused sparse op.
  Output onehot = one_hot(labels, s.dim(1), 1, 0, -1, logits.dtype(), "one_hot");
  Output per_example = softmax_cross_entropy_with_logits(onehot, logits, "xentropy");
  return reduce_mean(per_example, {}, false, "value");
}

Output mean_squared_error(const Output& labels, const Output& predictions, const std::string& name) {
  auto scope = predictions.graph()->name_scope(name);
  return reduce_mean(squared_difference(predictions, cast(labels, predictions.dtype())), {}, false, "value");
}

}  // namespace losses
}  // namespace tw
