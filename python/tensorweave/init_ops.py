"""TensorFlow 1's initializers that scale by the variable's fan: variance_scaling_initializer
(and glorot_normal_initializer, one of its settings), uniform_unit_scaling_initializer and
orthogonal_initializer, as graph ops over the random ops (their draws are ours, their
distributions TensorFlow's)."""
import numpy as np

from tensorweave import array_ops, dtypes, linalg_factor_ops, math_ops, random_ops
from tensorweave.array_diag_ops import diag_part
from tensorweave.framework import as_shape


def _compute_fans(shape):
    """(fan_in, fan_out) as TensorFlow's _compute_fans: a conv kernel's spatial dims multiply both."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling:
    """Draws with variance scale / fan ("fan_in", "fan_out" or "fan_avg"): a truncated normal
    ("truncated_normal", or TF 1's "normal"), a plain normal ("untruncated_normal") or a
    uniform."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, dtype=dtypes.float32):
        if scale <= 0.0:
            raise ValueError("`scale` must be positive float.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("Invalid `mode` argument: %s" % mode)
        distribution = distribution.lower()
        if distribution not in ("normal", "uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError("Invalid `distribution` argument: %s" % distribution)
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):  # noqa: ARG002
        dtype = dtypes.as_dtype(dtype or self.dtype)
        shape = as_shape(shape).as_list()
        fan_in, fan_out = _compute_fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, fan)
        if self.distribution in ("normal", "truncated_normal"):
            # 0.8796...: the standard deviation of a standard normal truncated to (-2, 2).
            stddev = np.sqrt(scale) / .87962566103423978
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, np.sqrt(scale), dtype, seed=self.seed)
        limit = np.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)


def variance_scaling_initializer(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                                 dtype=dtypes.float32):
    return VarianceScaling(scale, mode, distribution, seed, dtype)


def glorot_normal_initializer(seed=None, dtype=dtypes.float32):
    """Truncated normal with variance 2 / (fan_in + fan_out)."""
    return VarianceScaling(1.0, "fan_avg", "truncated_normal", seed, dtype)


class UniformUnitScaling:
    """Uniform in +-sqrt(3 / input_size) * factor, input_size the product of all dims but the last."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor, self.seed, self.dtype = factor, seed, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):  # noqa: ARG002
        shape = as_shape(shape).as_list()
        input_size = int(np.prod(shape[:-1])) if shape else 1
        max_val = np.sqrt(3.0 / max(input_size, 1)) * self.factor
        return random_ops.random_uniform(shape, -max_val, max_val, dtypes.as_dtype(dtype or self.dtype),
                                         seed=self.seed)


def uniform_unit_scaling_initializer(factor=1.0, seed=None, dtype=dtypes.float32):
    return UniformUnitScaling(factor, seed, dtype)


class Orthogonal:
    """An orthogonal matrix (rows or columns, whichever are fewer, orthonormal) times gain,
    from the QR factorization of a normal draw with R's diagonal signs folded into Q, reshaped
    to the variable's shape (all dims but the last flattened into rows)."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.seed, self.dtype = gain, seed, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):  # noqa: ARG002
        dtype = dtypes.as_dtype(dtype or self.dtype)
        shape = as_shape(shape).as_list()
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        q, r = linalg_factor_ops.qr(random_ops.random_normal(flat, dtype=dtype, seed=self.seed))
        q = q * math_ops.sign(diag_part(r))
        if rows < cols:
            q = array_ops.transpose(q)
        return self.gain * array_ops.reshape(q, shape)


def orthogonal_initializer(gain=1.0, seed=None, dtype=dtypes.float32):
    return Orthogonal(gain, seed, dtype)


# TF 1.15's named settings of VarianceScaling (init_ops.he_normal & co.).
def he_normal(seed=None):
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed=None):
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed=None):
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed=None):
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


class Identity:
    """gain times the identity matrix (TF's init_ops.Identity): 2-D shapes only; a shard of a
    partitioned variable gets its block of the full matrix."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain, self.dtype = gain, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        from tensorweave.linalg_ops import eye
        shape = as_shape(shape).as_list()
        full_shape = shape if partition_info is None else list(partition_info.full_shape)
        if len(full_shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        matrix = eye(*full_shape, dtype=dtypes.as_dtype(dtype or self.dtype))
        if partition_info is not None:
            matrix = array_ops.slice(matrix, list(partition_info.var_offset), shape)
        return self.gain * matrix


identity_initializer = Identity
