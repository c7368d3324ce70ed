"""tf.losses (TF 1.x): the common losses reduced to a scalar mean over the batch, each
added to the LOSSES collection as TensorFlow does."""
from tensorweave import math_ops, nn
from tensorweave.framework import GraphKeys, add_to_collection, convert_to_tensor, name_scope


def _weighted_mean(per_example, weights):
    loss = math_ops.reduce_mean(per_example) if isinstance(weights, float) and weights == 1.0 else \
        math_ops.reduce_mean(per_example * weights)
    add_to_collection(GraphKeys.LOSSES, loss)
    return loss


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                                 reduction=None):
    with name_scope(scope or "sparse_softmax_cross_entropy_loss"):
        return _weighted_mean(nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits), weights)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=None):
    if label_smoothing:
        raise NotImplementedError("tf.losses.softmax_cross_entropy(label_smoothing=...) is not supported")
    with name_scope(scope or "softmax_cross_entropy_loss"):
        return _weighted_mean(nn.softmax_cross_entropy_with_logits(labels=onehot_labels, logits=logits), weights)


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                       reduction=None):
    with name_scope(scope or "mean_squared_error"):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels, dtype=predictions.dtype)
        return _weighted_mean(math_ops.squared_difference(predictions, labels), weights)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    from tensorweave.framework import get_collection
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    from tensorweave.framework import get_collection
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the REGULARIZATION_LOSSES (0.0 when there are none)."""
    losses = get_regularization_losses(scope)
    if not losses:
        from tensorweave.array_ops import constant
        return constant(0.0, name=name)
    return math_ops.add_n(losses, name=name)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the LOSSES (and the REGULARIZATION_LOSSES unless told not)."""
    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses found in the LOSSES collection.")
    return math_ops.add_n(losses, name=name)
