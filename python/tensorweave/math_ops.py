"""Elementwise math, reductions, matmul and the tensor operators (x + y, x @ y, x[1:], ...)."""
from tensorweave import array_ops, dtypes, gen_ops
from tensorweave.framework import Tensor, _op_output, convert_to_tensor


def _binary_inputs(x, y):
    """Converts both sides; a Python value takes the dtype of the tensor beside it."""
    if isinstance(x, Tensor) or hasattr(x, "_as_graph_element"):
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype=x.dtype) if not _is_tensor_like(y) else convert_to_tensor(y)
    elif _is_tensor_like(y):
        y = convert_to_tensor(y)
        x = convert_to_tensor(x, dtype=y.dtype)
    else:
        x, y = convert_to_tensor(x), convert_to_tensor(y)
    return x, y


def _is_tensor_like(v):
    return isinstance(v, Tensor) or hasattr(v, "_as_graph_element")


def _binary(op_type):
    def fn(x, y, name=None):
        x, y = _binary_inputs(x, y)
        return _op_output(op_type, [x, y], name=name or op_type)
    fn.__name__ = op_type
    return fn


add = _binary("Add")
subtract = sub = _binary("Sub")
multiply = mul = _binary("Mul")
div = _binary("Div")  # C-style division for integers, as tf.div.
floordiv = floor_div = _binary("FloorDiv")  # x // y
floormod = mod = _binary("FloorMod")  # x % y, with the sign of y
maximum = _binary("Maximum")
minimum = _binary("Minimum")
pow = _binary("Pow")  # noqa: A001 - tf.pow.
squared_difference = _binary("SquaredDifference")
equal = _binary("Equal")
not_equal = _binary("NotEqual")
less = _binary("Less")
less_equal = _binary("LessEqual")
greater = _binary("Greater")
greater_equal = _binary("GreaterEqual")
logical_and = _binary("LogicalAnd")
logical_or = _binary("LogicalOr")
logical_not = gen_ops.logical_not
negative = neg = gen_ops.neg
from tensorweave.complex_ops import abs, conj  # noqa: A001,E402 - tf.abs: ComplexAbs for complex input.
square = gen_ops.square
sqrt = gen_ops.sqrt
rsqrt = gen_ops.rsqrt
exp = gen_ops.exp
log = gen_ops.log
tanh = gen_ops.tanh
sigmoid = gen_ops.sigmoid
sign = gen_ops.sign
reciprocal = gen_ops.reciprocal


def truediv(x, y, name="truediv"):
    """x / y; integers are divided as float64 (as Python 3 and TensorFlow do)."""
    x, y = _binary_inputs(x, y)
    if x.dtype.is_integer:
        x, y = array_ops.cast(x, dtypes.float64), array_ops.cast(y, dtypes.float64)
    return _op_output("RealDiv", [x, y], name=name)


divide = truediv


def where(condition, x=None, y=None, name=None):
    """tf.where: with x and y a Select; with neither, the int64 coordinates of the true
    elements of condition (op Where)."""
    if x is None and y is None:
        return _op_output("Where", [convert_to_tensor(condition)], name=name or "Where")
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    name = name or "Select"
    x, y = _binary_inputs(x, y)
    return _op_output("Select", [convert_to_tensor(condition), x, y], name=name)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """min(max(t, clip_value_min), clip_value_max), as TF 1.x built it: the gradient passes
    where t lies inside the range."""
    t = convert_to_tensor(t)
    return minimum(maximum(t, clip_value_min), clip_value_max, name=name or "clip_by_value")


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Row i of data added into output row segment_ids[i]; negative ids are dropped."""
    return _op_output("UnsortedSegmentSum", [convert_to_tensor(data), convert_to_tensor(segment_ids),
                                             array_ops._int_tensor(num_segments, "num_segments")],
                      name=name or "UnsortedSegmentSum")


add_n = gen_ops.add_n  # generated from the registry (tools/op_gen)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, name="MatMul"):
    """a @ b. As TensorFlow's: MatMul only transposes and BatchMatMulV2 only takes adjoints, so a
    complex operand is conjugated where the flag asked for the other (conj is a no-op on real
    values); the sparsity hints are accepted and ignored."""
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_b and adjoint_b can be True.")
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if (a.shape.ndims or 2) > 2 or (b.shape.ndims or 2) > 2:
        if transpose_a:
            a, adjoint_a = conj(a), True
        if transpose_b:
            b, adjoint_b = conj(b), True
        return _op_output("BatchMatMulV2", [a, b], {"adj_x": adjoint_a, "adj_y": adjoint_b}, name)
    if adjoint_a:
        a, transpose_a = conj(a), True
    if adjoint_b:
        b, transpose_b = conj(b), True
    return _op_output("MatMul", [a, b], {"transpose_a": transpose_a, "transpose_b": transpose_b}, name)


# ---- reductions

def _reduction_axes(x, axis):
    """All axes when axis is None: a constant when the rank is known, else range(rank)."""
    if axis is not None:
        return array_ops._int_tensor(axis, "reduction_indices")
    if x.shape.ndims is not None:
        return array_ops.constant(list(range(x.shape.ndims)), dtype=dtypes.int32, name="Const")
    return array_ops.range(0, array_ops.rank(x), 1)


def _reduction(op_type, default_name):
    def fn(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        x = convert_to_tensor(input_tensor)
        axis = reduction_indices if axis is None else axis
        keep = bool(keepdims if keepdims is not None else keep_dims)
        return _op_output(op_type, [x, _reduction_axes(x, axis)], {"keep_dims": keep}, name or default_name)
    fn.__name__ = default_name
    return fn


reduce_sum = _reduction("Sum", "Sum")
reduce_mean = _reduction("Mean", "Mean")
reduce_max = _reduction("Max", "Max")
reduce_min = _reduction("Min", "Min")
reduce_prod = _reduction("Prod", "Prod")


def _arg(op_type):
    def fn(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
        axis = dimension if axis is None else axis
        axis = 0 if axis is None else axis
        return _op_output(op_type, [convert_to_tensor(input), array_ops._int_tensor(axis, "dimension")],
                          {"output_type": dtypes.as_dtype(output_type)}, name or op_type)
    return fn


argmax = _arg("ArgMax")
argmin = _arg("ArgMin")


def to_float(x, name="ToFloat"):
    return array_ops.cast(x, dtypes.float32, name=name)


def to_int32(x, name="ToInt32"):
    return array_ops.cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    return array_ops.cast(x, dtypes.int64, name=name)


def to_double(x, name="ToDouble"):
    return array_ops.cast(x, dtypes.float64, name=name)


# ---- operators on tensors (and variables, through the same mixin)

def _reverse(fn):
    return lambda self, other: fn(other, self)


class TensorOperators:
    """The Python operators of tf.Tensor and tf.Variable."""
    __add__ = lambda self, other: add(self, other)  # noqa: E731
    __radd__ = _reverse(add)
    __sub__ = lambda self, other: subtract(self, other)  # noqa: E731
    __rsub__ = _reverse(subtract)
    __mul__ = lambda self, other: multiply(self, other)  # noqa: E731
    __rmul__ = _reverse(multiply)
    __truediv__ = lambda self, other: truediv(self, other)  # noqa: E731
    __rtruediv__ = _reverse(truediv)
    __floordiv__ = lambda self, other: floordiv(self, other)  # noqa: E731
    __rfloordiv__ = _reverse(floordiv)
    __mod__ = lambda self, other: floormod(self, other)  # noqa: E731
    __rmod__ = _reverse(floormod)
    __matmul__ = lambda self, other: matmul(self, other)  # noqa: E731
    __rmatmul__ = _reverse(matmul)
    __pow__ = lambda self, other: pow(self, other)  # noqa: E731
    __rpow__ = _reverse(pow)
    __neg__ = lambda self: negative(self)  # noqa: E731
    __abs__ = lambda self: abs(self)  # noqa: E731
    __lt__ = lambda self, other: less(self, other)  # noqa: E731
    __le__ = lambda self, other: less_equal(self, other)  # noqa: E731
    __gt__ = lambda self, other: greater(self, other)  # noqa: E731
    __ge__ = lambda self, other: greater_equal(self, other)  # noqa: E731
    __and__ = lambda self, other: logical_and(self, other)  # noqa: E731
    __rand__ = _reverse(logical_and)
    __or__ = lambda self, other: logical_or(self, other)  # noqa: E731
    __ror__ = _reverse(logical_or)
    __invert__ = lambda self: logical_not(self)  # noqa: E731
    __getitem__ = lambda self, key: array_ops._getitem(convert_to_tensor(self), key)  # noqa: E731


for _name, _fn in vars(TensorOperators).items():
    if _name.startswith("__") and callable(_fn) and _name not in ("__module__", "__doc__", "__qualname__"):
        setattr(Tensor, _name, _fn)


def _scan(op_type, x, axis, exclusive, reverse, name):
    return _op_output(op_type, [convert_to_tensor(x), array_ops._int_tensor(axis, "axis")],
                      {"exclusive": bool(exclusive), "reverse": bool(reverse)}, name=name or op_type)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sums along `axis` (exclusive: starting from 0; reverse: from the end)."""
    return _scan("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running products along `axis` (exclusive: starting from 1; reverse: from the end)."""
    return _scan("Cumprod", x, axis, exclusive, reverse, name)


def to_complex64(x, name="ToComplex64"):
    return array_ops.cast(x, dtypes.complex64, name=name)


def to_complex128(x, name="ToComplex128"):
    return array_ops.cast(x, dtypes.complex128, name=name)
