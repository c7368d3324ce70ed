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


def cross(a, b, name=None):
    """The cross product of the 3-vectors along the last dims of a and b (TensorFlow's order
    of terms: (a2 b3 - a3 b2, a3 b1 - a1 b3, a1 b2 - a2 b1))."""
    with name_scope(name or "Cross"):
        a, b = convert_to_tensor(a, name="a"), convert_to_tensor(b, name="b")
        for t in (a, b):
            if t.shape.ndims is not None and t.shape.as_list()[-1] not in (None, 3):
                raise ValueError("cross: the last dim must be 3, got shape %s" % t.shape)
        a1, a2, a3 = array_ops.unstack(a, 3, axis=-1)
        b1, b2, b3 = array_ops.unstack(b, 3, axis=-1)
        return array_ops.stack([a2 * b3 - a3 * b2, a3 * b1 - a1 * b3, a1 * b2 - a2 * b1], axis=-1)


def saturate_cast(value, dtype, name=None):
    """value cast to dtype, first clamped to dtype's range (a plain cast may wrap)."""
    from tensorweave import dtypes, math_ops
    with name_scope(name or "saturate_cast"):
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype)
        if value.dtype.min < dtype.min:
            value = math_ops.maximum(value, array_ops.constant(dtype.min, dtype=value.dtype, name="min"))
        if value.dtype.max > dtype.max:
            value = math_ops.minimum(value, array_ops.constant(dtype.max, dtype=value.dtype, name="max"))
        return array_ops.cast(value, dtype)


def confusion_matrix(labels, predictions, num_classes=None, dtype=None, name=None, weights=None):
    """[num_classes, num_classes] counts (or summed weights) of (label, prediction) pairs,
    as TensorFlow 1: negative values and, with num_classes given, values past it fail the
    step; num_classes defaults to the largest value + 1."""
    from tensorweave import check_ops, dtypes, partition_ops
    from tensorweave.framework import control_dependencies
    from tensorweave.math_ops import maximum, reduce_max
    dtype = dtypes.int32 if dtype is None else dtypes.as_dtype(dtype)
    with name_scope(name or "confusion_matrix"):
        labels = array_ops.cast(convert_to_tensor(labels, name="labels"), dtypes.int64)
        predictions = array_ops.cast(convert_to_tensor(predictions, name="predictions"), dtypes.int64)
        checks = [check_ops.assert_non_negative(labels, message="`labels` contains negative values"),
                  check_ops.assert_non_negative(predictions, message="`predictions` contains negative values")]
        if num_classes is None:
            num_classes = maximum(reduce_max(predictions), reduce_max(labels)) + 1
        else:
            num_classes = array_ops.cast(convert_to_tensor(num_classes, name="num_classes"), dtypes.int64)
            checks += [check_ops.assert_less(labels, num_classes, message="`labels` out of bound"),
                       check_ops.assert_less(predictions, num_classes, message="`predictions` out of bound")]
        with control_dependencies(checks):
            labels, predictions = array_ops.identity(labels), array_ops.identity(predictions)
        if weights is None:
            values = array_ops.ones_like(predictions, dtype=dtype)
        else:
            values = array_ops.cast(convert_to_tensor(weights, name="weights"), dtype)
        indices = array_ops.stack([labels, predictions], axis=1)
        return partition_ops.scatter_nd(indices, values, array_ops.stack([num_classes, num_classes]))


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of `inputs` (TF 1's tf.math.accumulate_n): TF's checks on the list, shape and
    tensor_dtype, then AddN (TF's AccumulateNV2 computes the same sum, only lazily)."""
    from tensorweave import dtypes
    from tensorweave.framework import TensorShape
    from tensorweave.math_ops import add_n

    def input_error():
        return ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise input_error()
    inputs = [convert_to_tensor(x) for x in inputs]
    if not all(x.dtype == inputs[0].dtype for x in inputs):
        raise input_error()
    merged = None if shape is None else TensorShape(shape).dims
    for x in inputs:  # TensorShape.merge_with over the inputs' static shapes
        dims = x.shape.dims
        if merged is None or dims is None:
            merged = dims if merged is None else merged
            continue
        if len(merged) != len(dims) or any(a is not None and b is not None and a != b for a, b in zip(merged, dims)):
            raise ValueError("Shapes %s and %s are not compatible" % (TensorShape(merged), x.shape))
        merged = [a if a is not None else b for a, b in zip(merged, dims)]
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) != inputs[0].dtype:
        raise TypeError("tensor_dtype is {}, but input is of type {}".format(tensor_dtype, inputs[0].dtype))
    if len(inputs) == 1:
        return inputs[0] if name is None else array_ops.identity(inputs[0], name=name)
    return add_n(inputs, name=name)
