"""tf.nn: activations and losses."""
from tensorweave import array_ops, gen_ops, math_ops
from tensorweave.framework import _op, _op_output, convert_to_tensor

relu = gen_ops.relu
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


from tensorweave.embedding_ops import embedding_lookup, embedding_lookup_sparse  # noqa: E402,F401


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


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None, exponential_avg_factor=1.0):
    """Batch normalization of a 4-D x over all dims but the channels (FusedBatchNormV3), TF1's
    signature. Returns (y, mean, variance): in training the batch statistics (variance with
    Bessel's correction), blended with the given mean / variance when exponential_avg_factor != 1;
    at inference the given mean and variance."""
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
                         "`exponential_avg_factor` != 1.0. Received: `mean` %r and `variance` %r" % (mean, variance))
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("fused_batch_norm takes data_format 'NHWC' or 'NCHW', got %r" % (data_format,))
    x = convert_to_tensor(x)
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError("fused_batch_norm needs a 4-D x, got shape %s" % (x.shape,))
    scale, offset = convert_to_tensor(scale), convert_to_tensor(offset)
    mean = array_ops.constant([], dtype=scale.dtype) if mean is None else convert_to_tensor(mean)
    variance = array_ops.constant([], dtype=scale.dtype) if variance is None else convert_to_tensor(variance)
    # As TF: cuDNN's lower bound on epsilon applies on every device.
    epsilon = max(float(epsilon), 1.001e-5)
    op = _op("FusedBatchNormV3", [x, scale, offset, mean, variance],
             {"epsilon": epsilon, "exponential_avg_factor": float(exponential_avg_factor),
              "data_format": data_format, "is_training": bool(is_training)}, name or "FusedBatchNormV3")
    return op.outputs[0], op.outputs[1], op.outputs[2]


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + variance_epsilon) + offset with broadcasting;
    offset and scale may be None."""
    from tensorweave.framework import name_scope
    with name_scope(name, "batchnorm"):
        x, mean, variance = convert_to_tensor(x), convert_to_tensor(mean), convert_to_tensor(variance)
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * convert_to_tensor(scale)
        offset = None if offset is None else convert_to_tensor(offset)
        shift = (offset - mean * inv) if offset is not None else -mean * inv
        return x * array_ops.cast(inv, x.dtype) + array_ops.cast(shift, x.dtype)


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):  # noqa: ARG001
    """Mean and (biased) variance of x over `axes`; float16 is computed in float32 and cast back.
    `shift` is unused, as in TF."""
    from tensorweave import dtypes
    from tensorweave.framework import name_scope
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name, "moments"):
        x = convert_to_tensor(x)
        y = array_ops.cast(x, dtypes.float32) if x.dtype == dtypes.float16 else x
        mean = math_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        # TF stops the gradient through this mean; it is zero anyway (deviations sum to 0).
        variance = math_ops.reduce_mean(math_ops.squared_difference(y, mean), axes, keepdims=True, name="variance")
        if not keep:
            mean = array_ops.squeeze(mean, list(axes) if isinstance(axes, (list, tuple)) else [axes])
            variance = array_ops.squeeze(variance, list(axes) if isinstance(axes, (list, tuple)) else [axes])
        if x.dtype == dtypes.float16:
            return array_ops.cast(mean, dtypes.float16), array_ops.cast(variance, dtypes.float16)
        return mean, variance


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x**2, axis), epsilon)) along `axis` (`dim` is its TF1 alias)."""
    from tensorweave.framework import name_scope
    axis = dim if axis is None else axis
    with name_scope(name, "l2_normalize"):
        x = convert_to_tensor(x)
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, array_ops.constant(epsilon, dtype=x.dtype)))
        return math_ops.multiply(x, x_inv_norm)
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


from tensorweave.nn_depthwise import (depthwise_conv2d, depthwise_conv2d_native,  # noqa: E402,F401 - tf.nn's names
                                      depthwise_conv2d_native_backprop_filter,
                                      depthwise_conv2d_native_backprop_input, separable_conv2d)
from tensorweave.candidate_sampling import (log_uniform_candidate_sampler, nce_loss,  # noqa: E402,F401 - tf.nn names
                                            sampled_softmax_loss, uniform_candidate_sampler)
from tensorweave.array_reorder_ops import depth_to_space, space_to_batch, space_to_depth  # noqa: E402,F401 - tf.nn names
