"""tf.layers (TF 1.x): dense, conv2d, conv2d_transpose, pooling, dropout, flatten and
batch_normalization, as functions and as classes, built from plain ops. Variables are made
with tf.get_variable inside a variable scope named as TensorFlow names it ("dense",
"dense_1", or the given name), so variable_scope reuse and device functions apply."""
import numpy as np

from tensorweave import array_ops, dtypes, math_ops, nn
from tensorweave.framework import (GraphKeys, Tensor, add_to_collection, convert_to_tensor, get_collection,
                                   get_default_graph)
from tensorweave.variables import get_variable, get_variable_scope, ones_initializer, variable_scope, zeros_initializer


def _pair(value, name):
    value = (value, value) if isinstance(value, int) else tuple(value)
    if len(value) != 2:
        raise ValueError(f"The `{name}` argument must be a tuple of 2 integers, got {value}")
    return tuple(int(v) for v in value)


def _padding(padding):
    padding = padding.upper()
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'same' or 'valid', got {padding.lower()!r}")
    return padding


def _data_format(data_format):
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"data_format must be 'channels_last' or 'channels_first', got {data_format!r}")
    return "NHWC" if data_format == "channels_last" else "NCHW"


def _unique_scope(base):
    """base, base_1, base_2, ... inside the current variable scope: the name TF gives an
    unnamed layer (variable_scope's default_name)."""
    graph = get_default_graph()
    counts = graph.__dict__.setdefault("_layer_scope_counts", {})
    outer = get_variable_scope().name
    key = (outer + "/" + base) if outer else base
    n = counts.get(key, 0)
    counts[key] = n + 1
    return base if n == 0 else f"{base}_{n}"


def _training_scale(training, dtype):
    """None for a Python False, 1.0 for True, else the bool tensor cast to dtype (0 or 1)."""
    if isinstance(training, (bool, np.bool_)):
        return 1.0 if training else None
    return array_ops.cast(convert_to_tensor(training), dtype)


def _select(scale, when_true, when_false):
    """when_true where scale is 1, when_false where 0; exact for either (no rounding)."""
    if scale is None:
        return when_false
    if isinstance(scale, float):
        return when_true
    return when_true * scale + when_false * (1.0 - scale)


class Layer:
    """The TF 1.x layer: variables made on the first call, in the layer's variable scope,
    and used again by later calls."""
    _base_name = "layer"

    def __init__(self, trainable=True, name=None, dtype=None, _reuse=None, **kwargs):
        unknown = set(kwargs) - {"activity_regularizer", "_scope"}
        if unknown:
            raise TypeError(f"{type(self).__name__}: unexpected keyword argument(s) {sorted(unknown)}")
        if kwargs.get("activity_regularizer") is not None:
            raise NotImplementedError("activity_regularizer is not supported by tensorweave's tf.layers")
        self.trainable = trainable
        self.name = name
        self.dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self._reuse = _reuse
        self._scope_name = None
        self.built = False
        self._trainable_weights = []
        self._non_trainable_weights = []
        self.updates = []
        self.losses = []

    @property
    def trainable_weights(self):
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self):
        return list(self._non_trainable_weights) + ([] if self.trainable else list(self._trainable_weights))

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    variables = weights
    trainable_variables = trainable_weights

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None, trainable=True):
        # get_variable adds a new variable's regularizer loss (not a reused one's, as TF).
        before = len(get_collection(GraphKeys.REGULARIZATION_LOSSES))
        var = get_variable(name, shape=shape, dtype=dtype or self.dtype or dtypes.float32, initializer=initializer,
                           regularizer=regularizer, trainable=trainable and self.trainable)
        self.losses.extend(get_collection(GraphKeys.REGULARIZATION_LOSSES)[before:])
        (self._trainable_weights if trainable else self._non_trainable_weights).append(var)
        return var

    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        raise NotImplementedError

    def __call__(self, inputs, *args, **kwargs):
        inputs = convert_to_tensor(inputs)
        if self.dtype is None:
            self.dtype = inputs.dtype
        if self._scope_name is None:
            self._scope_name = self.name if self.name is not None else _unique_scope(self._base_name)
            if self.name is None:
                self.name = self._scope_name
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope_name, reuse=reuse):
            if not self.built:
                self.build(inputs.shape)
                self.built = True
            return self.call(inputs, *args, **kwargs)

    apply = __call__


def _activate(activation, outputs):
    return outputs if activation is None else activation(outputs)


class Dense(Layer):
    _base_name = "dense"

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        if kernel_constraint is not None or bias_constraint is not None:
            raise NotImplementedError("kernel_constraint / bias_constraint are not supported")
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer

    def build(self, input_shape):
        if input_shape.ndims is None or input_shape.dims[-1] is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. Found `None`.")
        self.kernel = self.add_weight("kernel", [input_shape.dims[-1], self.units], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer)
        self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer) if self.use_bias else None

    def call(self, inputs):
        dims = inputs.shape.dims
        if dims is not None and len(dims) > 2:
            # [..., in] -> [..., units]: one matmul over the flattened leading dimensions.
            flat = array_ops.reshape(inputs, [-1, dims[-1]])
            outputs = math_ops.matmul(flat, self.kernel)
            lead = [d if d is not None else -1 for d in dims[:-1]]
            if lead.count(-1) > 1:
                lead = array_ops.shape(inputs)[:-1]
                outputs = array_ops.reshape(outputs, array_ops.concat([lead, [self.units]], 0))
            else:
                outputs = array_ops.reshape(outputs, lead + [self.units])
        else:
            outputs = math_ops.matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = nn.bias_add(outputs, self.bias)
        return _activate(self.activation, outputs)


class _Conv2DBase(Layer):
    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                 dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        if kernel_constraint is not None or bias_constraint is not None:
            raise NotImplementedError("kernel_constraint / bias_constraint are not supported")
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format)
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        self.activation, self.use_bias = activation, use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer

    def _channels(self, input_shape):
        if input_shape.ndims != 4:
            raise ValueError(f"Input 0 of layer {self.name} should have rank 4, got shape {input_shape}")
        channels = input_shape.dims[3 if self.data_format == "NHWC" else 1]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        return channels

    def _finish(self, outputs):
        if self.use_bias:
            outputs = nn.bias_add(outputs, self.bias, data_format=self.data_format)
        return _activate(self.activation, outputs)


class Conv2D(_Conv2DBase):
    _base_name = "conv2d"

    def build(self, input_shape):
        shape = list(self.kernel_size) + [self._channels(input_shape), self.filters]
        self.kernel = self.add_weight("kernel", shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer)
        self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer) if self.use_bias else None

    def call(self, inputs):
        outputs = nn.conv2d(inputs, self.kernel, strides=list(self.strides), padding=self.padding,
                            data_format=self.data_format, dilations=list(self.dilation_rate))
        return self._finish(outputs)


def _deconv_length(size, stride, kernel, padding):
    if size is None:
        return None
    return size * stride if padding == "SAME" else size * stride + max(kernel - stride, 0)


class Conv2DTranspose(_Conv2DBase):
    _base_name = "conv2d_transpose"

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last", **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding, data_format=data_format, **kwargs)
        if self.dilation_rate != (1, 1):
            raise NotImplementedError("Conv2DTranspose with dilation_rate != 1 is not supported")

    def build(self, input_shape):
        shape = list(self.kernel_size) + [self.filters, self._channels(input_shape)]
        self.kernel = self.add_weight("kernel", shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer)
        self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer) if self.use_bias else None

    def call(self, inputs):
        dims = inputs.shape.dims
        h_axis, w_axis = (1, 2) if self.data_format == "NHWC" else (2, 3)
        dynamic = array_ops.shape(inputs)
        sizes = []
        for axis, i in ((h_axis, 0), (w_axis, 1)):
            length = _deconv_length(dims[axis], self.strides[i], self.kernel_size[i], self.padding)
            if length is None:
                size = dynamic[axis] * self.strides[i]
                if self.padding == "VALID":
                    size = size + max(self.kernel_size[i] - self.strides[i], 0)
                length = size
            sizes.append(length)
        batch = dims[0] if dims[0] is not None else dynamic[0]
        out_shape = [batch, sizes[0], sizes[1], self.filters] if self.data_format == "NHWC" else \
            [batch, self.filters, sizes[0], sizes[1]]
        if all(isinstance(d, int) for d in out_shape):
            output_shape = out_shape
        else:
            output_shape = array_ops.stack([array_ops.cast(d, dtypes.int32) if isinstance(d, Tensor)
                                            else array_ops.constant(d, dtype=dtypes.int32) for d in out_shape])
        outputs = nn.conv2d_transpose(inputs, self.kernel, output_shape, strides=list(self.strides),
                                      padding=self.padding, data_format=self.data_format)
        if not isinstance(output_shape, list) and all(isinstance(d, int) for d in out_shape[1:]):
            # The static shape TF infers from the known dimensions (only the batch is unknown).
            outputs = array_ops.reshape(outputs, [-1] + out_shape[1:])
        return self._finish(outputs)


class _Pooling2D(Layer):
    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = _pair(pool_size, "pool_size")
        self.strides = _pair(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format)

    def call(self, inputs):
        return self._pool(inputs, ksize=list(self.pool_size), strides=list(self.strides), padding=self.padding,
                          data_format=self.data_format)


class MaxPooling2D(_Pooling2D):
    _base_name = "max_pooling2d"
    _pool = staticmethod(nn.max_pool)


class AveragePooling2D(_Pooling2D):
    _base_name = "average_pooling2d"
    _pool = staticmethod(nn.avg_pool)


class Dropout(Layer):
    _base_name = "dropout"

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def call(self, inputs, training=False):
        scale = _training_scale(training, inputs.dtype)
        if scale is None or (isinstance(self.rate, (int, float)) and self.rate == 0):
            return array_ops.identity(inputs)
        dropped = nn.dropout(inputs, rate=self.rate, noise_shape=self.noise_shape, seed=self.seed)
        return _select(scale, dropped, inputs)


class Flatten(Layer):
    _base_name = "flatten"

    def __init__(self, data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.data_format = _data_format(data_format)

    def call(self, inputs):
        dims = inputs.shape.dims
        if dims is None:
            raise ValueError("Flatten needs inputs of known rank")
        if self.data_format == "NCHW" and len(dims) > 2:  # TF flattens channels-last order.
            inputs = array_ops.transpose(inputs, [0] + list(range(2, len(dims))) + [1])
            dims = inputs.shape.dims
        rest = dims[1:]
        if None not in rest:
            return array_ops.reshape(inputs, [-1 if dims[0] is None else dims[0], int(np.prod(rest, dtype=np.int64))])
        return array_ops.reshape(inputs, array_ops.stack([array_ops.shape(inputs)[0], -1]))


class BatchNormalization(Layer):
    """Normalizes with the batch's mean and variance when training (and moves the moving
    averages by ops in tf.GraphKeys.UPDATE_OPS), with the moving averages otherwise."""
    _base_name = "batch_normalization"

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=zeros_initializer(), gamma_initializer=ones_initializer(),
                 moving_mean_initializer=zeros_initializer(), moving_variance_initializer=ones_initializer(),
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 renorm=False, renorm_clipping=None, renorm_momentum=0.99, fused=None, trainable=True,
                 virtual_batch_size=None, adjustment=None, name=None, **kwargs):
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("batch_normalization: renorm, virtual_batch_size and adjustment are not "
                                      "supported")
        if beta_constraint is not None or gamma_constraint is not None:
            raise NotImplementedError("beta_constraint / gamma_constraint are not supported")
        super().__init__(trainable=trainable, name=name, **kwargs)
        if not isinstance(axis, int):
            raise NotImplementedError("batch_normalization: only a single int axis is supported")
        self.axis, self.momentum, self.epsilon = axis, momentum, epsilon
        self.center, self.scale, self.fused = center, scale, fused
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer

    def build(self, input_shape):
        ndims = input_shape.ndims
        if ndims is None:
            raise ValueError("Input has undefined rank.")
        axis = self.axis + ndims if self.axis < 0 else self.axis
        if not 0 <= axis < ndims:
            raise ValueError(f"Invalid axis: {self.axis}")
        channels = input_shape.dims[axis]
        if channels is None:
            raise ValueError(f"Input has undefined `axis` dimension. Input shape: {input_shape}")
        self._axis, self._ndims = axis, ndims
        # TF's fused kernel (rank 4, channel axis 1 or 3) moves the variance by the batch's
        # unbiased variance; the plain path by the biased one.
        self._unbiased = self.fused is not False and ndims == 4 and axis in (1, 3)
        if self.fused and not self._unbiased:
            raise ValueError("fused batch norm needs 4-D inputs with axis 1 or 3")
        self.gamma = self.add_weight("gamma", [channels], initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer) if self.scale else None
        self.beta = self.add_weight("beta", [channels], initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", [channels], initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", [channels],
                                               initializer=self.moving_variance_initializer, trainable=False)

    def _broadcast(self, v):
        if self._axis == self._ndims - 1:
            return v
        shape = [1] * self._ndims
        shape[self._axis] = -1
        return array_ops.reshape(v, shape)

    def call(self, inputs, training=False):
        scale = _training_scale(training, inputs.dtype)
        mean, variance = self.moving_mean.value(), self.moving_variance.value()
        if scale is not None:
            axes = [i for i in range(self._ndims) if i != self._axis]
            batch_mean = math_ops.reduce_mean(inputs, axes)
            batch_variance = math_ops.reduce_mean(
                math_ops.squared_difference(inputs, self._broadcast(batch_mean)), axes)
            mean = _select(scale, batch_mean, mean)
            variance = _select(scale, batch_variance, variance)
            moving_variance_target = batch_variance
            if self._unbiased:
                count = array_ops.cast(array_ops.size(inputs) // array_ops.shape(inputs)[self._axis], inputs.dtype)
                moving_variance_target = batch_variance * count / math_ops.maximum(count - 1.0, 1.0)
            # moving -= (moving - batch) * (1 - momentum); no move when training is false.
            decay = (1.0 - self.momentum) if isinstance(scale, float) else scale * (1.0 - self.momentum)
            graph = get_default_graph()
            for var, target, label in ((self.moving_mean, batch_mean, "AssignMovingAvg"),
                                       (self.moving_variance, moving_variance_target, "AssignMovingAvg_1")):
                with graph.name_scope(label):
                    update = var.assign_sub((var.value() - target) * decay, read_value=False)
                add_to_collection(GraphKeys.UPDATE_OPS, update)
                self.updates.append(update)
        inv = math_ops.rsqrt(variance + self.epsilon)
        if self.gamma is not None:
            inv = inv * self.gamma
        offset = -mean * inv
        if self.beta is not None:
            offset = offset + self.beta
        return inputs * self._broadcast(inv) + self._broadcast(offset)


# ---- the functional forms

def _scoped(layer_class, inputs, name, reuse, call_kwargs=None, **kwargs):
    layer = layer_class(name=name, _reuse=reuse, **kwargs)
    return layer(inputs, **(call_kwargs or {}))


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
          reuse=None):
    return _scoped(Dense, inputs, name, reuse, units=units, activation=activation, use_bias=use_bias,
                   kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                   kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                   activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                   bias_constraint=bias_constraint, trainable=trainable)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    return _scoped(Conv2D, inputs, name, reuse, filters=filters, kernel_size=kernel_size, strides=strides,
                   padding=padding, data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                   use_bias=use_bias, kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                   kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                   activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                   bias_constraint=bias_constraint, trainable=trainable)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     activation=None, use_bias=True, kernel_initializer=None, bias_initializer=zeros_initializer(),
                     kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                     kernel_constraint=None, bias_constraint=None, trainable=True, name=None, reuse=None):
    return _scoped(Conv2DTranspose, inputs, name, reuse, filters=filters, kernel_size=kernel_size, strides=strides,
                   padding=padding, data_format=data_format, activation=activation, use_bias=use_bias,
                   kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                   kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                   activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                   bias_constraint=bias_constraint, trainable=trainable)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return MaxPooling2D(pool_size, strides, padding=padding, data_format=data_format, name=name)(inputs)


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return AveragePooling2D(pool_size, strides, padding=padding, data_format=data_format, name=name)(inputs)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    return Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)(inputs, training=training)


def flatten(inputs, name=None, data_format="channels_last"):
    return Flatten(data_format=data_format, name=name)(inputs)


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=zeros_initializer(), gamma_initializer=ones_initializer(),
                        moving_mean_initializer=zeros_initializer(), moving_variance_initializer=ones_initializer(),
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                        training=False, trainable=True, name=None, reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None, adjustment=None):
    return _scoped(BatchNormalization, inputs, name, reuse, call_kwargs={"training": training}, axis=axis,
                   momentum=momentum, epsilon=epsilon, center=center, scale=scale, beta_initializer=beta_initializer,
                   gamma_initializer=gamma_initializer, moving_mean_initializer=moving_mean_initializer,
                   moving_variance_initializer=moving_variance_initializer, beta_regularizer=beta_regularizer,
                   gamma_regularizer=gamma_regularizer, beta_constraint=beta_constraint,
                   gamma_constraint=gamma_constraint, renorm=renorm, renorm_clipping=renorm_clipping,
                   renorm_momentum=renorm_momentum, fused=fused, trainable=trainable,
                   virtual_batch_size=virtual_batch_size, adjustment=adjustment)


__all__ = ["Layer", "Dense", "Conv2D", "Conv2DTranspose", "MaxPooling2D", "AveragePooling2D", "Dropout", "Flatten",
           "BatchNormalization", "dense", "conv2d", "conv2d_transpose", "max_pooling2d", "average_pooling2d",
           "dropout", "flatten", "batch_normalization"]
