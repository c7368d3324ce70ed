"""tf.losses (TF 1.x): each loss computes per-element losses, then compute_weighted_loss
weights and reduces them as TensorFlow does (Reduction, default SUM_BY_NONZERO_WEIGHTS: the
weighted sum over the number of non-zero weights), in float32 whatever the input dtype, and
adds the result to the LOSSES collection."""
from tensorweave import array_ops, dtypes, math_ops, math_reduce_ops, nn
from tensorweave.framework import GraphKeys, add_to_collection, convert_to_tensor, name_scope


class Reduction:
    """TF1's tf.losses.Reduction."""
    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError("Invalid Reduction Key %s." % key)


def _float32(x):
    x = convert_to_tensor(x)
    return x if x.dtype == dtypes.float32 else array_ops.cast(x, dtypes.float32)


def _check_broadcastable(weights, values):
    """TF's rule: weights are a scalar, or of the values' rank with each dim 1 or the values'."""
    w, v = weights.shape, values.shape
    if w.ndims is None or v.ndims is None or w.ndims == 0:
        return
    w_dims, v_dims = w.as_list(), v.as_list()
    ok = w.ndims == v.ndims and all(a is None or b is None or a in (1, b) for a, b in zip(w_dims, v_dims))
    if not ok:
        raise ValueError("weights can not be broadcast to values. values.rank=%d. weights.rank=%d. "
                         "values.shape=%s. weights.shape=%s." % (v.ndims, w.ndims, v, w))


def _safe_div(numerator, denominator):
    """numerator / denominator, 0 where the denominator is 0 (its gradient finite there too)."""
    zero = math_ops.equal(denominator, 0.0)
    safe = math_ops.where(zero, array_ops.ones_like(denominator), denominator)
    return math_ops.where(zero, array_ops.zeros_like(numerator), math_ops.truediv(numerator, safe))


def _num_present(losses, weights):
    """The number of losses with a non-zero weight (all of them for a non-zero Python weight)."""
    if isinstance(weights, float) and weights != 0.0:
        return array_ops.cast(array_ops.size(losses), dtypes.float32)
    weights = _float32(weights)
    present = math_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                             array_ops.ones_like(weights))
    return math_ops.reduce_sum(present * array_ops.ones_like(losses))


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    Reduction.validate(reduction)
    with name_scope(scope or "weighted_loss"):
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype
        losses = _float32(losses)
        weight_tensor = _float32(weights)
        _check_broadcastable(weight_tensor, losses)
        weighted = math_ops.multiply(losses, weight_tensor)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = math_ops.reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = _safe_div(loss, math_ops.reduce_sum(array_ops.ones_like(losses) * weight_tensor))
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = _safe_div(loss, _num_present(losses, weights))
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                loss = _safe_div(loss, array_ops.cast(array_ops.size(losses), dtypes.float32))
        if loss.dtype != input_dtype:
            loss = array_ops.cast(loss, input_dtype)
        if loss_collection is not None:
            add_to_collection(loss_collection, loss)
        return loss


def _require(**args):
    for name, value in args.items():
        if value is None:
            raise ValueError("Argument `%s` must not be None." % name)


def _check_same_shape(predictions, labels):
    p, q = predictions.shape, labels.shape
    if p.ndims is None or q.ndims is None:
        return
    if p.ndims != q.ndims or any(a is not None and b is not None and a != b
                                 for a, b in zip(p.as_list(), q.as_list())):
        raise ValueError("Shapes %s and %s are incompatible" % (p.as_list(), q.as_list()))


def _float_pair(labels, predictions):
    predictions, labels = _float32(predictions), _float32(labels)
    _check_same_shape(predictions, labels)
    return labels, predictions


def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(labels=labels, predictions=predictions)
    with name_scope(scope or "absolute_difference"):
        labels, predictions = _float_pair(labels, predictions)
        return compute_weighted_loss(math_ops.abs(predictions - labels), weights, None, loss_collection,
                                     reduction=reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(labels=labels, predictions=predictions)
    with name_scope(scope or "mean_squared_error"):
        labels, predictions = _float_pair(labels, predictions)
        return compute_weighted_loss(math_ops.squared_difference(predictions, labels), weights, None,
                                     loss_collection, reduction=reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """0.5 e^2 where |e| <= delta, delta (|e| - delta/2) beyond, e = predictions - labels."""
    _require(labels=labels, predictions=predictions)
    with name_scope(scope or "huber_loss"):
        labels, predictions = _float_pair(labels, predictions)
        abs_error = math_ops.abs(predictions - labels)
        quadratic = math_ops.minimum(abs_error, delta)
        linear = abs_error - quadratic  # |e| - min(|e|, delta): the part beyond delta
        losses = 0.5 * quadratic * quadratic + delta * linear
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction=reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(labels=labels, predictions=predictions)
    with name_scope(scope or "log_loss"):
        labels, predictions = _float_pair(labels, predictions)
        losses = -labels * math_ops.log(predictions + epsilon) - (1.0 - labels) * math_ops.log(
            1.0 - predictions + epsilon)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction=reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """max(0, 1 - y * logits) with the 0/1 labels mapped to y = -1/+1."""
    _require(labels=labels, logits=logits)
    with name_scope(scope or "hinge_loss"):
        logits = _float32(logits)
        labels = array_ops.cast(convert_to_tensor(labels), logits.dtype)
        _check_same_shape(logits, labels)
        signs = 2.0 * labels - 1.0
        losses = nn.relu(1.0 - signs * logits)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction=reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """1 - sum(labels * predictions) along `axis` (both assumed unit-normalized), kept as a dim."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    _require(labels=labels, predictions=predictions)
    with name_scope(scope or "cosine_distance_loss"):
        labels, predictions = _float_pair(labels, predictions)
        losses = 1.0 - math_ops.reduce_sum(predictions * labels, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction=reduction)


def _sigmoid_xent(labels, logits):
    """max(x, 0) - x z + log(1 + exp(-|x|)): TF's overflow-free form of the logistic loss."""
    return nn.relu(logits) - logits * labels + math_ops.log(1.0 + math_ops.exp(-math_ops.abs(logits)))


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(multi_class_labels=multi_class_labels, logits=logits)
    with name_scope(scope or "sigmoid_cross_entropy_loss"):
        logits = convert_to_tensor(logits)
        labels = array_ops.cast(convert_to_tensor(multi_class_labels), logits.dtype)
        _check_same_shape(logits, labels)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        return compute_weighted_loss(_sigmoid_xent(labels, logits), weights, None, loss_collection,
                                     reduction=reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(onehot_labels=onehot_labels, logits=logits)
    with name_scope(scope or "softmax_cross_entropy_loss"):
        logits = convert_to_tensor(logits)
        labels = array_ops.cast(convert_to_tensor(onehot_labels), logits.dtype)
        _check_same_shape(logits, labels)
        if label_smoothing > 0:
            num_classes = array_ops.cast(array_ops.shape(labels)[-1], logits.dtype)
            labels = labels * (1.0 - label_smoothing) + label_smoothing / num_classes
        # As TF1: the (smoothed) labels are constants of the loss, so no gradient flows to them.
        labels = math_reduce_ops.stop_gradient(labels, name="labels_stop_gradient")
        losses = nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction=reduction)


def _squeeze_weights(weights, losses):
    """Weights of shape [batch, 1] for per-example losses [batch]: TF squeezes the last dim."""
    if isinstance(weights, float):
        return weights
    weights = convert_to_tensor(weights)
    if weights.shape.ndims is not None and losses.shape.ndims is not None and \
            weights.shape.ndims == losses.shape.ndims + 1 and weights.shape.as_list()[-1] == 1:
        return array_ops.squeeze(weights, axis=[-1])
    return weights


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(labels=labels, logits=logits)
    with name_scope(scope or "sparse_softmax_cross_entropy_loss"):
        losses = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        return compute_weighted_loss(losses, _squeeze_weights(weights, losses), None, loss_collection,
                                     reduction=reduction)


def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    if loss_collection is not None:
        add_to_collection(loss_collection, loss)


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
