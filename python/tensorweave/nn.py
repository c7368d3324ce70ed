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


def _conv_attrs(strides, padding, data_format, dilations, explicit_paddings=None):
    if isinstance(padding, (list, tuple)):  # TF's explicit form: [[0, 0], [t, b], [l, r], [0, 0]]
        explicit_paddings = [int(p) for pair in padding for p in pair]
        padding = "EXPLICIT"

    def four(v, name):
        v = [v] if isinstance(v, int) else list(v)
        if len(v) == 1:
            v = v * 2
        if len(v) == 2:
            return [1, v[0], v[1], 1] if data_format == "NHWC" else [1, 1, v[0], v[1]]
        if len(v) != 4:
            raise ValueError(f"{name} must have 1, 2 or 4 values, got {v}")
        return v
    return {"strides": four(strides, "strides"), "padding": padding, "data_format": data_format,
            "dilations": four(dilations if dilations is not None else 1, "dilations"),
            "explicit_paddings": explicit_paddings or []}


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002, ARG001
           data_format="NHWC", dilations=None, name=None, filters=None):
    """2-D convolution of an NHWC (or NCHW) input with a [kh, kw, in, out] filter."""
    filter = filters if filter is None else filter
    if filter is None or strides is None or padding is None:
        raise TypeError("conv2d needs input, filter, strides and padding")
    return _op_output("Conv2D", [convert_to_tensor(input), convert_to_tensor(filter)],
                      _conv_attrs(strides, padding, data_format, dilations), name or "Conv2D")


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None, padding=None,  # noqa: A002
                          use_cudnn_on_gpu=True, data_format="NHWC", dilations=None, name=None,  # noqa: ARG001
                          filters=None):
    filter = filters if filter is None else filter
    return _op_output("Conv2DBackpropInput", [array_ops._int_tensor(input_sizes, "input_sizes"),
                                              convert_to_tensor(filter), convert_to_tensor(out_backprop)],
                      _conv_attrs(strides, padding, data_format, dilations), name or "Conv2DBackpropInput")


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=None, name=None):  # noqa: ARG001
    return _op_output("Conv2DBackpropFilter", [convert_to_tensor(input),
                                               array_ops._int_tensor(filter_sizes, "filter_sizes"),
                                               convert_to_tensor(out_backprop)],
                      _conv_attrs(strides, padding, data_format, dilations), name or "Conv2DBackpropFilter")


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NHWC", name=None, input=None, filters=None, dilations=None):  # noqa: A002
    """The gradient of conv2d with respect to its input, as a layer (TF1's signature)."""
    value = input if value is None else value
    filter = filters if filter is None else filter
    return conv2d_backprop_input(output_shape, filter, value, strides, padding, data_format=data_format,
                                 dilations=dilations, name=name or "conv2d_transpose")


def _pool_attrs(ksize, strides, padding, data_format):
    attrs = _conv_attrs(strides, padding, data_format, None)
    del attrs["dilations"]
    attrs["ksize"] = _conv_attrs(ksize, "VALID", data_format, None)["strides"]
    return attrs


def max_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC", name=None, input=None):  # noqa: A002
    """Max pooling over [kh, kw] windows of an NHWC (or NCHW) input; ksize and strides as 4 values
    (TF1) or 1 or 2 (TF2's max_pool2d)."""
    value = input if value is None else value
    if value is None or ksize is None or strides is None or padding is None:
        raise TypeError("max_pool needs value, ksize, strides and padding")
    return _op_output("MaxPool", [convert_to_tensor(value)], _pool_attrs(ksize, strides, padding, data_format),
                      name or "MaxPool")


def avg_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC", name=None, input=None):  # noqa: A002
    """Average pooling; windows clipped by the padding average only the elements inside."""
    value = input if value is None else value
    if value is None or ksize is None or strides is None or padding is None:
        raise TypeError("avg_pool needs value, ksize, strides and padding")
    if not isinstance(padding, str):
        raise ValueError("avg_pool takes padding 'SAME' or 'VALID', not explicit paddings")
    attrs = _pool_attrs(ksize, strides, padding, data_format)
    del attrs["explicit_paddings"]
    return _op_output("AvgPool", [convert_to_tensor(value)], attrs, name or "AvgPool")


max_pool2d = max_pool
avg_pool2d = avg_pool


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases."""
    return bias_add(math_ops.matmul(x, weights), biases, name=name or "xw_plus_b")


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """The per-example loss for class indices `labels` (shape [batch]) and logits [batch,
    classes]: softmax cross-entropy against one_hot(labels)."""
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `sparse_softmax_cross_entropy_with_logits` with named arguments "
                         "(labels=..., logits=..., ...)")
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    dims = logits.shape.dims
    if dims is not None and len(dims) != 2:
        raise ValueError("sparse_softmax_cross_entropy_with_logits needs logits of shape [batch, classes], got %s"
                         % (dims,))
    if not labels.dtype.is_integer:
        raise ValueError("sparse_softmax_cross_entropy_with_logits: labels must be int32 or int64, got %s"
                         % labels.dtype.name)
    classes = dims[-1] if dims is not None and dims[-1] is not None else array_ops.shape(logits)[1]
    one_hot = array_ops.one_hot(labels, classes, dtype=logits.dtype)
    return softmax_cross_entropy_with_logits(labels=one_hot, logits=logits,
                                             name=name or "SparseSoftmaxCrossEntropyWithLogits")


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Keeps each element with probability keep_prob (scaled by 1 / keep_prob), else 0;
    keep_prob may be a tensor (a placeholder fed 1.0 at test time)."""
    from tensorweave import random_ops
    from tensorweave.framework import name_scope
    if (keep_prob is None) == (rate is None):
        raise ValueError("dropout: give exactly one of keep_prob or rate")
    with name_scope(name or "dropout"):
        x = convert_to_tensor(x)
        if keep_prob is None:
            keep_prob = 1 - convert_to_tensor(rate, dtype=x.dtype)
        if isinstance(keep_prob, (int, float)) and not 0 < keep_prob <= 1:
            raise ValueError("keep_prob must be a scalar tensor or a float in the range (0, 1], got %g" % keep_prob)
        keep_prob = convert_to_tensor(keep_prob, dtype=x.dtype)
        static = x.shape.as_list() if x.shape.ndims is not None else None
        if noise_shape is not None:
            shape = noise_shape
        elif static is not None and None not in static:
            shape = static
        else:
            shape = array_ops.shape(x)
        kept = array_ops.cast(math_ops.less(random_ops.random_uniform(shape, dtype=x.dtype, seed=seed), keep_prob),
                             x.dtype)
        out = x * kept / keep_prob
        if noise_shape is None and static is not None and static.count(None) == 1 and out.shape.ndims is None:
            # TF gives the result x's static shape (set_shape); a reshape with -1 for the
            # one unknown dimension does that here, so that later layers can read it.
            out = array_ops.reshape(out, [-1 if d is None else d for d in static])
        return out


# ---- activations beyond relu (kernels in src/kernels/cpu/activation_kernels.cc)

def _activation(op_type, default_name):
    def fn(features, name=None):
        return _op_output(op_type, [convert_to_tensor(features)], name=name or default_name)
    fn.__name__ = default_name
    return fn


relu6 = _activation("Relu6", "Relu6")
elu = _activation("Elu", "Elu")
selu = _activation("Selu", "Selu")
softplus = _activation("Softplus", "Softplus")
softsign = _activation("Softsign", "Softsign")


def leaky_relu(features, alpha=0.2, name=None):
    """max(features, alpha * features) for alpha <= 1: TensorFlow's LeakyRelu op."""
    return _op_output("LeakyRelu", [convert_to_tensor(features)], {"alpha": float(alpha)},
                      name=name or "LeakyRelu")


# ---- top-k (kernels in src/kernels/cpu/topk_kernels.cc)

import collections as _collections  # noqa: E402

TopKV2 = _collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, name=None, index_type=None):  # noqa: A002 - TF's names
    """The k largest entries of the last dim and their indices; ties: the lower index first."""
    from tensorweave import dtypes
    attrs = {"sorted": bool(sorted)}
    if index_type is not None:
        attrs["index_type"] = dtypes.as_dtype(index_type)
    op = _op("TopKV2", [convert_to_tensor(input), array_ops._int_tensor(k, "k")], attrs, name=name or "TopKV2")
    return TopKV2(op.outputs[0], op.outputs[1])


def in_top_k(predictions, targets, k, name=None):
    """Whether targets[i] is among the k highest predictions of row i (ties count as in)."""
    targets = convert_to_tensor(targets)
    k = convert_to_tensor(k, dtype=targets.dtype)
    return _op_output("InTopKV2", [convert_to_tensor(predictions), targets, k], name=name or "in_top_k")
