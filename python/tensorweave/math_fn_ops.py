"""Elementwise functions of tf.math beyond math_ops.py: trigonometric and hyperbolic,
rounding, special functions, predicates, truncating division, the x*log(y) family and the
bitwise ops, with TensorFlow 1's names and argument names."""
from tensorweave.framework import _op_output, convert_to_tensor
from tensorweave import gen_ops
from tensorweave.math_ops import _binary, _binary_inputs, logical_and, logical_not, logical_or

sin = gen_ops.sin
cos = gen_ops.cos
tan = gen_ops.tan
asin = gen_ops.asin
acos = gen_ops.acos
atan = gen_ops.atan
sinh = gen_ops.sinh
cosh = gen_ops.cosh
asinh = gen_ops.asinh
acosh = gen_ops.acosh
atanh = gen_ops.atanh
floor = gen_ops.floor
ceil = gen_ops.ceil
rint = gen_ops.rint
expm1 = gen_ops.expm1
log1p = gen_ops.log1p
erf = gen_ops.erf
erfc = gen_ops.erfc
lgamma = gen_ops.lgamma
digamma = gen_ops.digamma
is_finite = gen_ops.is_finite
is_inf = gen_ops.is_inf
is_nan = gen_ops.is_nan

truncatediv = truncate_div = _binary("TruncateDiv")  # rounds toward zero
truncatemod = truncate_mod = _binary("TruncateMod")  # the sign of x, as C's % and fmod
div_no_nan = _binary("DivNoNan")
multiply_no_nan = _binary("MulNoNan")  # x * y, and 0 where y is 0
xdivy = _binary("Xdivy")
xlogy = _binary("Xlogy")
xlog1py = _binary("Xlog1py")


def round(x, name=None):  # noqa: A001 - tf.round
    """Rounds halves to even; integers are returned as they are (as tf.round does)."""
    x = convert_to_tensor(x)
    if x.dtype.is_integer:
        return x
    return _op_output("Round", [x], name=name or "Round")


def atan2(y, x, name=None):
    """The angle of (x, y), in [-pi, pi]; y comes first, as in TensorFlow."""
    y, x = _binary_inputs(y, x)
    return _op_output("Atan2", [y, x], name=name or "Atan2")


def _named_binary(op_type, first, second):
    def fn(*args, name=None, **kwargs):
        names = (first, second)
        values = list(args) + [kwargs.pop(n) for n in names[len(args):]]
        if kwargs or len(values) != 2:
            raise TypeError(f"{op_type.lower()}() takes ({first}, {second}, name=None)")
        a, b = _binary_inputs(*values)
        return _op_output(op_type, [a, b], name=name or op_type)
    fn.__name__ = op_type.lower()
    return fn


igamma = _named_binary("Igamma", "a", "x")  # regularized lower incomplete gamma P(a, x)
igammac = _named_binary("Igammac", "a", "x")  # its complement Q(a, x)
zeta = _named_binary("Zeta", "x", "q")  # Hurwitz zeta
polygamma = _named_binary("Polygamma", "a", "x")  # the a-th derivative of digamma


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b); a, b and x share one shape, or are
    scalars."""
    a = convert_to_tensor(a)
    b, x = convert_to_tensor(b, dtype=a.dtype), convert_to_tensor(x, dtype=a.dtype)
    return _op_output("Betainc", [a, b, x], name=name or "Betainc")


def logical_xor(x, y, name="LogicalXor"):
    """x xor y, built as TensorFlow builds it: (x or y) and not (x and y)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# tf.bitwise
bitwise_and = _binary("BitwiseAnd")
bitwise_or = _binary("BitwiseOr")
bitwise_xor = _binary("BitwiseXor")
left_shift = _binary("LeftShift")
right_shift = _binary("RightShift")  # arithmetic for signed types
invert = gen_ops.invert
