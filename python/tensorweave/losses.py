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
