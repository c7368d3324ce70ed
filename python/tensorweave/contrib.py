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


def xavier_initializer(uniform=True, seed=None, dtype=None):  # noqa: ARG001
    if not uniform:
        raise NotImplementedError("xavier_initializer(uniform=False) is not in tensorweave yet")
    return _variables.glorot_uniform_initializer(seed=seed)


framework = _Namespace("contrib.framework", get_or_create_global_step=_train.get_or_create_global_step,
                       get_global_step=_train.get_global_step,
                       get_variables=_variables.global_variables)
layers = _Namespace("contrib.layers", xavier_initializer=xavier_initializer, l2_regularizer=l2_regularizer,
                    l1_regularizer=l1_regularizer)


def __getattr__(name):
    raise AttributeError(f"tf.contrib.{name} is not in tensorweave yet")
