"""tf.signal's Fourier transforms, with TensorFlow 1's names and arguments: fft / ifft over
the innermost 1, 2 or 3 dims of a complex tensor, rfft / irfft between real signals and their
non-negative frequencies (fft_length defaulting as TensorFlow's: the input's inner dims for
rfft, 2 * (n - 1) on the last axis for irfft), and fftshift / ifftshift. Also exported as
tf.fft, tf.ifft, tf.fft2d, ... at the top level."""
from tensorweave import array_ops, dtypes, gen_ops
from tensorweave.array_reorder_ops import roll
from tensorweave.framework import convert_to_tensor, name_scope

_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def _complex_input(x):
    x = convert_to_tensor(x, name="input")
    if not x.dtype.is_complex:
        raise TypeError("expected a complex64 or complex128 tensor, got %s" % x.dtype.name)
    return x


def _complex_transform(op):
    def fn(input, name=None):  # noqa: A002 - TensorFlow's argument name.
        return getattr(gen_ops, op)(_complex_input(input), name=name)
    fn.__name__ = op.lower()
    fn.__doc__ = "%s over the innermost dims of a complex tensor." % op.upper()
    return fn


fft = _complex_transform("fft")
ifft = _complex_transform("ifft")
fft2d = _complex_transform("fft2d")
ifft2d = _complex_transform("ifft2d")
fft3d = _complex_transform("fft3d")
ifft3d = _complex_transform("ifft3d")


def _inner_dims(x, rank, last=None):
    """The innermost `rank` dims of x as an int32 vector (a constant when they are known),
    the last one mapped by `last`."""
    dims = x.shape.as_list()[-rank:] if x.shape.ndims is not None else None
    if dims is not None and None not in dims:
        if last is not None:
            dims[-1] = last(dims[-1])
        return convert_to_tensor(dims, dtype=dtypes.int32)
    dynamic = array_ops.shape(x)[-rank:]
    if last is None:
        return dynamic
    return array_ops.concat([dynamic[:-1], array_ops.reshape(last(dynamic[-1]), [1])], 0)


def _real_transform(op, rank, forward):
    def fn(input_tensor, fft_length=None, name=None):
        if forward:
            x = convert_to_tensor(input_tensor, name="input_tensor")
            if x.dtype not in _COMPLEX_OF:
                raise TypeError("%s: expected a float32 or float64 tensor, got %s" % (op, x.dtype.name))
            complex_dtype = _COMPLEX_OF[x.dtype]
        else:
            x = _complex_input(input_tensor)
        if fft_length is None:
            fft_length = _inner_dims(x, rank, None if forward else lambda n: 2 * (n - 1) if n > 0 else 0)
        else:
            fft_length = convert_to_tensor(fft_length, dtype=dtypes.int32, name="fft_length")
        if forward:
            return getattr(gen_ops, op)(x, fft_length, Tcomplex=complex_dtype, name=name)
        return getattr(gen_ops, op)(x, fft_length, Treal=x.dtype.real_dtype, name=name)
    fn.__name__ = op
    return fn


rfft = _real_transform("rfft", 1, True)
irfft = _real_transform("irfft", 1, False)
rfft2d = _real_transform("rfft2d", 2, True)
irfft2d = _real_transform("irfft2d", 2, False)
rfft3d = _real_transform("rfft3d", 3, True)
irfft3d = _real_transform("irfft3d", 3, False)


def _shift(x, axes, sign, name):
    with name_scope(name):
        x = convert_to_tensor(x, name="x")
        rank = x.shape.ndims
        if axes is None:
            axes = list(range(rank)) if rank is not None else array_ops.range(array_ops.rank(x))
        elif isinstance(axes, int):
            axes = [axes]
        if isinstance(axes, (list, tuple)) and rank is not None:
            axes = [a + rank if a < 0 else a for a in axes]  # Negative axes count from the end, as TF's.
        shift = array_ops.gather(array_ops.shape(x), axes) // 2
        return roll(x, shift if sign > 0 else -shift, axes)


def fftshift(x, axes=None, name=None):
    """The zero frequency moved to the middle: x rolled by n // 2 along each of `axes` (all by default)."""
    return _shift(x, axes, 1, name or "fftshift")


def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift: rolled by -(n // 2)."""
    return _shift(x, axes, -1, name or "ifftshift")
