"""Complex numbers, as TensorFlow 1's math_ops: tf.complex, tf.real, tf.imag, tf.conj,
tf.angle, and tf.abs (ComplexAbs for complex input). As TensorFlow, real, imag, conj and
angle also take real tensors (real and conj return them, imag gives zeros, angle 0 or pi)."""
from tensorweave import dtypes, gen_ops
from tensorweave.framework import Tensor, convert_to_tensor, name_scope

_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def complex(real, imag, name=None):  # noqa: A001 - TensorFlow's name.
    """real + i imag, broadcast; both float32 (complex64) or both float64 (complex128)."""
    real = convert_to_tensor(real, name="real")
    if not (isinstance(imag, Tensor) or hasattr(imag, "_as_graph_element")):  # A Python value takes real's dtype.
        imag = convert_to_tensor(imag, name="imag", dtype=real.dtype if real.dtype in _COMPLEX_OF else None)
    imag = convert_to_tensor(imag, name="imag")
    if real.dtype != imag.dtype or real.dtype not in _COMPLEX_OF:
        raise TypeError("complex: real and imag must both be float32 or both float64, got %s and %s"
                        % (real.dtype.name, imag.dtype.name))
    return gen_ops.complex(real, imag, Tout=_COMPLEX_OF[real.dtype], name=name)


def real(input, name=None):  # noqa: A002 - TensorFlow's argument name.
    """The real part of a complex tensor; a real tensor as it is."""
    x = convert_to_tensor(input, name="input")
    if not x.dtype.is_complex:
        return x
    return gen_ops.real(x, Tout=x.dtype.real_dtype, name=name)


def imag(input, name=None):  # noqa: A002
    """The imaginary part of a complex tensor; zeros for a real one."""
    x = convert_to_tensor(input, name="input")
    if not x.dtype.is_complex:
        from tensorweave import array_ops
        return array_ops.zeros_like(x, name=name)
    return gen_ops.imag(x, Tout=x.dtype.real_dtype, name=name)


def angle(input, name=None):  # noqa: A002
    """The argument of each complex value, in (-pi, pi]; for a real tensor atan2(0, x)."""
    x = convert_to_tensor(input, name="input")
    if not x.dtype.is_complex:
        from tensorweave import array_ops, math_fn_ops
        with name_scope(name or "Angle"):
            return math_fn_ops.atan2(array_ops.zeros_like(x), x)
    return gen_ops.angle(x, Tout=x.dtype.real_dtype, name=name)


def conj(x, name=None):
    """The complex conjugate; a real tensor as it is. Strings and bools are refused, as in TF."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_complex:
        return gen_ops.conj(x, name=name)
    if x.dtype.is_floating or x.dtype.is_integer:
        return x
    raise TypeError("Expected numeric or variant tensor, got dtype %s" % x.dtype.name)


def abs(x, name=None):  # noqa: A001 - tf.abs
    """|x|: for complex x the modulus (ComplexAbs), of the real dtype."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_complex:
        return gen_ops.complex_abs(x, Tout=x.dtype.real_dtype, name=name)
    return gen_ops.abs(x, name=name)
