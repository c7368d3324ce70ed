"""tf.contrib: the names TF 1.x programs reach through contrib that tensorweave has, as aliases
(contrib.framework's global step, contrib.layers' initializers and regularizers). Any other
contrib name raises AttributeError saying tensorweave does not have it yet."""
import types as _types

from tensorweave import math_ops as _math_ops
from tensorweave import train as _train
from tensorweave import variables as _variables


class _Namespace(_types.SimpleNamespace):
    def __init__(self, path, **names):
        super().__init__(**names)
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"tf.{self._path}.{name} is not in tensorweave yet")


def _regularizer(scale, norm):
    if scale < 0.0:
        raise ValueError(f"the regularization scale must be >= 0, got {scale}")

    def apply(weights):
        if scale == 0.0:
            return None
        return _math_ops.multiply(norm(weights), scale)  # scale takes the weights' dtype
    return apply


def l2_regularizer(scale, scope=None):  # noqa: ARG001
    """scale * sum(w ** 2) / 2, as tf.contrib.layers.l2_regularizer (None for scale 0)."""
    return _regularizer(scale, lambda w: _math_ops.reduce_sum(_math_ops.square(w)) * 0.5)


def l1_regularizer(scale, scope=None):  # noqa: ARG001
    """scale * sum(|w|)."""
    return _regularizer(scale, lambda w: _math_ops.reduce_sum(_math_ops.abs(w)))


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None, dtype=None):  # noqa: ARG001
    """tf.contrib.layers' He/Xavier family: uniform in +-sqrt(3 * factor / n), or a
    truncated normal with stddev sqrt(1.3 * factor / n); n is fan_in, fan_out or their mean."""
    if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
        raise TypeError(f"Unknown mode {mode} [FAN_IN, FAN_OUT, FAN_AVG]")
    from tensorweave import random_ops

    def init(shape, dtype=None, partition_info=None):  # noqa: ARG001
        shape = [int(d) for d in shape]
        if len(shape) == 0:
            fan_in = fan_out = 1.0
        elif len(shape) == 1:
            fan_in = fan_out = float(shape[0])
        else:  # a conv kernel [..., in, out]: the receptive field multiplies both fans.
            receptive = 1.0
            for d in shape[:-2]:
                receptive *= d
            fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        kwargs = {"dtype": dtype} if dtype is not None else {}
        if uniform:
            limit = (3.0 * factor / n) ** 0.5
            return random_ops.random_uniform(shape, -limit, limit, seed=seed, **kwargs)
        return random_ops.truncated_normal(shape, 0.0, (1.3 * factor / n) ** 0.5, seed=seed, **kwargs)
    return init


def xavier_initializer(uniform=True, seed=None, dtype=None):  # noqa: ARG001
    if uniform:
        return _variables.glorot_uniform_initializer(seed=seed)
    return variance_scaling_initializer(factor=1.0, mode="FAN_AVG", uniform=False, seed=seed)


framework = _Namespace("contrib.framework", get_or_create_global_step=_train.get_or_create_global_step,
                       get_global_step=_train.get_global_step,
                       get_variables=_variables.global_variables)
layers = _Namespace("contrib.layers", xavier_initializer=xavier_initializer, l2_regularizer=l2_regularizer,
                    l1_regularizer=l1_regularizer, variance_scaling_initializer=variance_scaling_initializer,
                    xavier_initializer_conv2d=xavier_initializer)

opt = _Namespace("contrib.opt", LazyAdamOptimizer=_train.LazyAdamOptimizer)


def _data_namespace():
    from tensorweave.iterator_saveable import make_saveable_from_iterator
    return _Namespace("contrib.data", make_saveable_from_iterator=make_saveable_from_iterator)


def _rnn_namespace():
    from tensorweave import rnn as _rnn_ops, rnn_cell as _cells
    names = {n: getattr(_cells, n) for n in ("RNNCell", "LayerRNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell",
                                            "GRUCell", "MultiRNNCell", "DropoutWrapper", "LSTMStateTuple")}
    from tensorweave.lstm_fused import LSTMBlockFusedCell
    return _Namespace("contrib.rnn", static_rnn=_rnn_ops.static_rnn, LSTMBlockFusedCell=LSTMBlockFusedCell, **names)


def __getattr__(name):
    if name == "rnn":  # Built on first use: rnn_cell imports modules that import this one.
        globals()["rnn"] = _rnn_namespace()
        return globals()["rnn"]
    if name == "data":
        globals()["data"] = _data_namespace()
        return globals()["data"]
    raise AttributeError(f"tf.contrib.{name} is not in tensorweave yet")
