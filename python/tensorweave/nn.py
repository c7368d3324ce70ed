"""tf.nn: activations and losses."""
from tensorweave import array_ops, math_ops
from tensorweave.framework import _op, _op_output, convert_to_tensor

relu = math_ops._unary("Relu")
sigmoid = math_ops.sigmoid
tanh = math_ops.tanh


def _last_axis_only(op_name, logits, axis):
    if axis not in (None, -1) and axis != (logits.shape.ndims or 0) - 1:
        raise ValueError("%s: only the last axis is supported, got axis=%r" % (op_name, axis))


def softmax(logits, axis=None, name="Softmax", dim=None):
    logits = convert_to_tensor(logits)
    _last_axis_only("softmax", logits, axis if axis is not None else dim)
    return _op_output("Softmax", [logits], name=name)


def log_softmax(logits, axis=None, name="LogSoftmax", dim=None):
    logits = convert_to_tensor(logits)
    _last_axis_only("log_softmax", logits, axis if axis is not None else dim)
    return _op_output("LogSoftmax", [logits], name=name)


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name="SoftmaxCrossEntropyWithLogits", axis=None):
    """The per-example loss, shape [batch] (pass labels= and logits= by name, as TensorFlow)."""
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `softmax_cross_entropy_with_logits` with named arguments "
                         "(labels=..., logits=..., ...)")
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype=logits.dtype)
    _last_axis_only("softmax_cross_entropy_with_logits", logits, axis if axis is not None else dim)
    return _op("SoftmaxCrossEntropyWithLogits", [logits, labels], name=name).outputs[0]


softmax_cross_entropy_with_logits_v2 = softmax_cross_entropy_with_logits


def bias_add(value, bias, data_format=None, name="BiasAdd"):
    attrs = {"data_format": data_format} if data_format else {}
    return _op_output("BiasAdd", [convert_to_tensor(value), convert_to_tensor(bias)], attrs, name)


def l2_loss(t, name="L2Loss"):
    """sum(t ** 2) / 2."""
    t = convert_to_tensor(t)
    return math_ops.multiply(math_ops.reduce_sum(math_ops.square(t)), array_ops.constant(0.5, dtype=t.dtype),
                             name=name)


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,  # noqa: ARG001
                     max_norm=None):
    """Rows of params at ids (tf.gather along axis 0). Its gradient is dense here (summed
    into a tensor shaped like params), not TensorFlow's IndexedSlices."""
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("embedding_lookup over a partitioned variable (a list of %d params) is not "
                                      "supported yet" % len(params))
        params = params[0]
    if max_norm is not None:
        raise NotImplementedError("embedding_lookup(max_norm=...) is not supported yet")
    return array_ops.gather(params, ids, name=name or "embedding_lookup")
