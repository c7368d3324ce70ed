"""tf.metrics (TF 1.x): streaming metrics. Each returns (value, update_op): update_op adds a
batch to accumulators and returns the metric so far, value reads it. The accumulators are
zero-initialized, non-trainable variables in LOCAL_VARIABLES and METRIC_VARIABLES, so
tf.local_variables_initializer() resets them. The formulas are TensorFlow's
(metrics_impl.py), weights and squeezable dimensions included."""
from tensorweave import array_ops, check_ops, dtypes, math_ops
from tensorweave.framework import GraphKeys, add_to_collections, convert_to_tensor, control_dependencies, name_scope
from tensorweave.variables import Variable


def metric_variable(shape, dtype, validate_shape=True, name=None):  # noqa: ARG001 - TF's signature
    """A zero-initialized accumulator in LOCAL_VARIABLES and METRIC_VARIABLES."""
    return Variable(array_ops.zeros(shape, dtype), trainable=False, name=name,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])


def _float(x):
    x = convert_to_tensor(x)
    return x if x.dtype == dtypes.float32 else array_ops.cast(x, dtypes.float32)


def _rank(t):
    return t.shape.ndims


def _remove_squeezable_dimensions(predictions, labels, weights):
    """TF's rule on static ranks: a trailing size-1 dim that makes labels and predictions
    differ by one rank is squeezed; weights one rank above the predictions lose their
    trailing 1, one rank below gain one."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels = convert_to_tensor(labels)
        p, q = _rank(predictions), _rank(labels)
        if p is not None and q is not None:
            if p - q == 1 and predictions.shape.as_list()[-1] in (1, None):
                predictions = array_ops.squeeze(predictions, axis=[-1])
            elif q - p == 1 and labels.shape.as_list()[-1] in (1, None):
                labels = array_ops.squeeze(labels, axis=[-1])
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    p, w = _rank(predictions), _rank(weights)
    if p is not None and w is not None and w != 0:
        if w - p == 1:
            weights = array_ops.squeeze(weights, axis=[-1])
        elif p - w == 1:
            weights = array_ops.expand_dims(weights, -1)
    return predictions, labels, weights


def _broadcast_weights(weights, values):
    """weights * ones_like(values) after TF's check: a scalar, or of the values' rank with each
    dim 1 or the values'."""
    w, v = weights.shape, values.shape
    if w.ndims not in (None, 0) and v.ndims is not None:
        if w.ndims != v.ndims or any(a is not None and b is not None and a not in (1, b)
                                     for a, b in zip(w.as_list(), v.as_list())):
            raise ValueError("weights can not be broadcast to values. values.rank=%d. weights.rank=%d. "
                             "values.shape=%s. weights.shape=%s." % (v.ndims, w.ndims, v.as_list(), w.as_list()))
    return weights * array_ops.ones_like(values)


def _div_no_nan(x, y, name=None):
    zero = math_ops.equal(y, 0.0)
    return math_ops.where(zero, array_ops.zeros_like(x), math_ops.truediv(x, math_ops.where(
        zero, array_ops.ones_like(y), y)), name=name)


def _collect(metrics_collections, updates_collections, value, update_op):
    if metrics_collections:
        add_to_collections(metrics_collections, value)
    if updates_collections:
        add_to_collections(updates_collections, update_op)
    return value, update_op


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of all values seen: total / count."""
    with name_scope(name or "mean"):
        values = _float(values)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = array_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = _broadcast_weights(_float(weights), values)
            values = values * weights
            num_values = math_ops.reduce_sum(weights)
        update_total = total.assign_add(math_ops.reduce_sum(values))
        with control_dependencies([values]):
            update_count = count.assign_add(num_values)
        value = _div_no_nan(total.read_value(), math_ops.maximum(count.read_value(), 0.0), name="value")
        update_op = _div_no_nan(update_total, math_ops.maximum(update_count, 0.0), name="update_op")
        return _collect(metrics_collections, updates_collections, value, update_op)


def accuracy(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) fraction of predictions equal to the labels."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    if labels.dtype != predictions.dtype:
        predictions = array_ops.cast(predictions, labels.dtype)
    is_correct = array_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                        name=None):
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    errors = math_ops.abs(predictions - labels)
    return mean(errors, weights, metrics_collections, updates_collections, name or "mean_absolute_error")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                       name=None):
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    errors = math_ops.squared_difference(labels, predictions)
    return mean(errors, weights, metrics_collections, updates_collections, name or "mean_squared_error")


def _count_condition(condition, weights, name):
    """A counter of the (weighted) true elements of `condition`: (count, update_op)."""
    with name_scope(name):
        count = metric_variable([], dtypes.float32, name="count")
        values = array_ops.cast(condition, dtypes.float32)
        if weights is not None:
            values = values * _broadcast_weights(_float(weights), values)
        return count.read_value(), count.assign_add(math_ops.reduce_sum(values))


def _bool_inputs(labels, predictions, weights):
    predictions, labels, weights = _remove_squeezable_dimensions(
        array_ops.cast(convert_to_tensor(predictions), dtypes.bool),
        array_ops.cast(convert_to_tensor(labels), dtypes.bool), weights)
    return labels, predictions, weights


def _ratio_where_positive(num, other, name):
    """num / (num + other), 0 while the sum is 0 (TF's compute_precision / compute_recall)."""
    total = num + other
    return math_ops.where(math_ops.greater(total, 0.0), math_ops.truediv(num, total), array_ops.zeros_like(num),
                          name=name)


def _precision_or_recall(labels, predictions, weights, metrics_collections, updates_collections, name, default,
                         false_is):
    with name_scope(name or default):
        labels, predictions, weights = _bool_inputs(labels, predictions, weights)
        tp, tp_update = _count_condition(math_ops.logical_and(labels, predictions), weights, "true_positives")
        if false_is == "positive":
            wrong = math_ops.logical_and(math_ops.logical_not(labels), predictions)
        else:
            wrong = math_ops.logical_and(labels, math_ops.logical_not(predictions))
        other, other_update = _count_condition(wrong, weights, "false_" + false_is + "s")
        value = _ratio_where_positive(tp, other, "value")
        update_op = _ratio_where_positive(tp_update, other_update, "update_op")
        return _collect(metrics_collections, updates_collections, value, update_op)


def precision(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """true positives / (true positives + false positives) of boolean labels and predictions."""
    return _precision_or_recall(labels, predictions, weights, metrics_collections, updates_collections, name,
                                "precision", "positive")


def recall(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """true positives / (true positives + false negatives)."""
    return _precision_or_recall(labels, predictions, weights, metrics_collections, updates_collections, name,
                                "recall", "negative")


def _confusion_at_thresholds(labels, predictions, thresholds, weights):
    """Accumulators tp, fn, tn, fp of shape [len(thresholds)]: a prediction is positive at a
    threshold it is strictly above. Returns (values, updates), dicts by those names."""
    predictions = convert_to_tensor(predictions)
    # As TensorFlow: predictions outside [0, 1] fail the update at run time (Assert ops).
    in_range = [check_ops.assert_greater_equal(predictions, 0.0,
                                               message="predictions must be in [0, 1]"),
                check_ops.assert_less_equal(predictions, 1.0,
                                            message="predictions must be in [0, 1]")]
    with control_dependencies(in_range):
        predictions, labels, weights = _remove_squeezable_dimensions(
            array_ops.cast(predictions, dtypes.float32), array_ops.cast(convert_to_tensor(labels), dtypes.bool),
            weights)
    n = len(thresholds)
    predictions_2d = array_ops.reshape(predictions, [-1, 1])
    labels_2d = array_ops.reshape(labels, [1, -1])
    count = array_ops.shape(predictions_2d)[0]
    thresh_tiled = array_ops.tile(array_ops.expand_dims(array_ops.constant(thresholds, dtypes.float32), 1),
                                  array_ops.stack([1, count]))
    pred_is_pos = math_ops.greater(array_ops.tile(array_ops.transpose(predictions_2d), [n, 1]), thresh_tiled)
    label_is_pos = array_ops.tile(labels_2d, [n, 1])
    weights_tiled = None
    if weights is not None:
        weights = _broadcast_weights(_float(weights), predictions)
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]), [n, 1])
    conditions = {
        "tp": math_ops.logical_and(label_is_pos, pred_is_pos),
        "fn": math_ops.logical_and(label_is_pos, math_ops.logical_not(pred_is_pos)),
        "tn": math_ops.logical_and(math_ops.logical_not(label_is_pos), math_ops.logical_not(pred_is_pos)),
        "fp": math_ops.logical_and(math_ops.logical_not(label_is_pos), pred_is_pos),
    }
    names = {"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives", "fp": "false_positives"}
    values, updates = {}, {}
    for key, condition in conditions.items():
        var = metric_variable([n], dtypes.float32, name=names[key])
        hits = array_ops.cast(condition, dtypes.float32)
        if weights_tiled is not None:
            hits = hits * weights_tiled
        updates[key] = var.assign_add(math_ops.reduce_sum(hits, 1))
        values[key] = var.read_value()
    return values, updates


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None, updates_collections=None,
        curve="ROC", name=None, summation_method="trapezoidal", thresholds=None):
    """The area under the ROC or PR curve, a Riemann sum over thresholds in [0, 1]
    (predictions must lie there). summation_method: trapezoidal, minoring or majoring
    (careful_interpolation only for ROC, where it is trapezoidal)."""
    if curve not in ("ROC", "PR"):
        raise ValueError("Curve must be either ROC or PR. Curve %s is unknown." % curve)
    methods = ("trapezoidal", "minoring", "majoring") + (("careful_interpolation",) if curve == "ROC" else ())
    if summation_method not in methods:
        raise ValueError("summation_method %r is not supported for curve %s (supported: %s)"
                         % (summation_method, curve, ", ".join(methods)))
    with name_scope(name or "auc"):
        kepsilon = 1e-7  # TF's margin around 0 and 1 for the end thresholds
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon] + inner + [1.0 + kepsilon]
        n = len(thresholds)
        values, updates = _confusion_at_thresholds(labels, predictions, thresholds, weights)
        epsilon = 1.0e-6  # TF's guard against 0 / 0

        def compute(tp, fn, tn, fp, op_name):
            rec = math_ops.truediv(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x, y = math_ops.truediv(fp, fp + tn + epsilon), rec
            else:
                x, y = rec, math_ops.truediv(tp + epsilon, tp + fp + epsilon)
            dx = x[:n - 1] - x[1:]
            if summation_method == "minoring":
                heights = math_ops.minimum(y[:n - 1], y[1:])
            elif summation_method == "majoring":
                heights = math_ops.maximum(y[:n - 1], y[1:])
            else:
                heights = (y[:n - 1] + y[1:]) / 2.0
            return math_ops.reduce_sum(dx * heights, name=op_name)

        value = compute(values["tp"], values["fn"], values["tn"], values["fp"], "value")
        update_op = compute(updates["tp"], updates["fn"], updates["tn"], updates["fp"], "update_op")
        return _collect(metrics_collections, updates_collections, value, update_op)
