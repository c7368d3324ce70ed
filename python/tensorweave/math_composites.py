"""tf.math functions TensorFlow builds from other ops, built the same way here: reductions
(reduce_variance, reduce_std, lbeta), monotonicity tests, and small compositions
(log_sigmoid, reciprocal_no_nan, scalar_mul, polyval)."""
from tensorweave import array_ops, gen_ops
from tensorweave.framework import _op_output, convert_to_tensor, name_scope
from tensorweave.math_fn_ops import div_no_nan, lgamma
from tensorweave.math_ops import greater, greater_equal, negative, reduce_mean, reduce_sum, sqrt, square
from tensorweave.math_reduce_ops import reduce_all
from tensorweave.nn import softplus

divide_no_nan = div_no_nan


realdiv = gen_ops.real_div  # generated from the registry (tools/op_gen)


def reciprocal_no_nan(x, name=None):
    """1 / x, and 0 where x is 0."""
    with name_scope(name or "reciprocal_no_nan"):
        x = convert_to_tensor(x, name="x")
        return div_no_nan(array_ops.constant(1, dtype=x.dtype, name="one"), x)


def log_sigmoid(x, name=None):
    """log(1 / (1 + exp(-x))) as -softplus(-x), which neither overflows nor loses precision."""
    with name_scope(name or "LogSigmoid"):
        x = convert_to_tensor(x, name="x")
        return negative(softplus(negative(x)))


def scalar_mul(scalar, x, name=None):
    """scalar * x for a 0-d scalar (ValueError otherwise, as TensorFlow)."""
    x = convert_to_tensor(x)
    scalar = convert_to_tensor(scalar, dtype=x.dtype, name="scalar")
    if scalar.shape.ndims != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {scalar.shape}.")
    return _op_output("Mul", [scalar, x], name=name or "Mul")


def lbeta(x, name=None):
    """log(|Beta(x)|) over the last dimension: sum(lgamma(x)) - lgamma(sum(x))."""
    with name_scope(name or "lbeta"):
        x = convert_to_tensor(x, name="x")
        return reduce_sum(lgamma(x), axis=[-1]) - lgamma(reduce_sum(x, axis=[-1]))


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """mean((x - mean(x))^2) over axis (floats only, as TensorFlow)."""
    with name_scope(name or "reduce_variance"):
        x = convert_to_tensor(input_tensor)
        if x.dtype.is_integer:
            raise TypeError(f"Input must be either real or complex. Received integer type {x.dtype}.")
        means = reduce_mean(x, axis=axis, keepdims=True)
        return reduce_mean(square(x - means), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    with name_scope(name or "reduce_std"):
        return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def _monotonic(x, compare):
    """compare(x[i+1], x[i]) over x flattened; empty (so reduce_all is True) below 2 elements."""
    flat = array_ops.reshape(convert_to_tensor(x), [-1])
    return compare(flat[1:], flat[:-1])


def is_non_decreasing(x, name=None):
    with name_scope(name or "is_non_decreasing"):
        return reduce_all(_monotonic(x, greater_equal))


def is_strictly_increasing(x, name=None):
    with name_scope(name or "is_strictly_increasing"):
        return reduce_all(_monotonic(x, greater))


def polyval(coeffs, x, name=None):
    """coeffs[0] * x^(n-1) + ... + coeffs[n-1], by Horner's rule as TensorFlow."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    with name_scope(name or "polyval"):
        x = convert_to_tensor(x, name="x")
        if not coeffs:
            return array_ops.zeros_like(x)
        coeffs = [convert_to_tensor(c, name="coeff_%d" % i) for i, c in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = c + p * x
        return p
