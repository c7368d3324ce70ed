"""Element types, as tf.float32 & co.: each wraps the C++ DType and knows its NumPy type."""
import numpy as np

from tensorweave import _core


class DType:
    """A tensor element type (tf.DType): compares equal to itself, its name and its NumPy type."""

    def __init__(self, core):
        self._core = core

    @property
    def name(self):
        return _core.dtype_name(self._core)

    @property
    def as_numpy_dtype(self):
        return _core.numpy_dtype(self._core).type

    @property
    def as_datatype_enum(self):
        """The DataType enum value (TensorFlow's numbering, as in GraphDefs)."""
        return int(self._core)

    @property
    def base_dtype(self):
        return self

    @property
    def is_floating(self):
        return self._core in (_core.DType.float16, _core.DType.float32, _core.DType.float64)

    @property
    def is_integer(self):
        return self._core in (_core.DType.int8, _core.DType.uint8, _core.DType.int16,
                              _core.DType.uint16, _core.DType.int32, _core.DType.int64)

    @property
    def is_bool(self):
        return self._core == _core.DType.bool

    @property
    def min(self):
        """The lowest finite value (TensorFlow's DType.min)."""
        return self._limits().min

    @property
    def max(self):
        """The highest finite value (TensorFlow's DType.max)."""
        return self._limits().max

    def _limits(self):
        np_type = np.dtype(self.as_numpy_dtype)
        if np_type.kind == "f":
            return np.finfo(np_type)
        if np_type.kind in "iu":
            return np.iinfo(np_type)
        if np_type.kind == "b":
            return _BoolLimits
        raise TypeError("Cannot find minimum/maximum value of %s." % self.name)

    @property
    def is_complex(self):
        return self._core in (_core.DType.complex64, _core.DType.complex128)

    @property
    def real_dtype(self):
        """float32 for complex64, float64 for complex128, the dtype itself otherwise."""
        return {_core.DType.complex64: float32, _core.DType.complex128: float64}.get(self._core, self)

    def __eq__(self, other):
        try:
            return self._core == as_dtype(other)._core
        except TypeError:
            return False

    def __hash__(self):
        return hash(self._core)

    def __repr__(self):
        return "tf." + self.name


class _BoolLimits:
    min, max = False, True


float32 = DType(_core.DType.float32)
float64 = DType(_core.DType.float64)
double = float64
int32 = DType(_core.DType.int32)
int64 = DType(_core.DType.int64)
int8 = DType(_core.DType.int8)
uint8 = DType(_core.DType.uint8)
int16 = DType(_core.DType.int16)
uint16 = DType(_core.DType.uint16)
float16 = DType(_core.DType.float16)
half = float16
bool = DType(_core.DType.bool)  # noqa: A001 - TensorFlow's name.
string = DType(_core.DType.string)  # Elements are bytes; NumPy holds them in object arrays.
resource = DType(_core.DType.resource)
complex64 = DType(_core.DType.complex64)
complex128 = DType(_core.DType.complex128)

# Every dtype a NumPy array can hold by value, in the order as_dtype tries them.
_NUMPY_DTYPES = (float32, float64, int32, int64, bool, int8, uint8, int16, uint16, float16, complex64, complex128)
variant = DType(_core.DType.variant)
_BY_CORE = {d._core: d for d in _NUMPY_DTYPES + (string, resource, variant)}
_BY_NAME = {"float32": float32, "float": float32, "float64": float64, "double": float64,
            "int32": int32, "int64": int64, "bool": bool, "string": string, "resource": resource, "variant": variant,
            "int8": int8, "uint8": uint8, "int16": int16, "uint16": uint16,
            "float16": float16, "half": float16, "complex64": complex64, "complex128": complex128}


def as_dtype(value):
    """A DType from a DType, a C++ DType, a name ("float32") or a NumPy type; TypeError otherwise."""
    if isinstance(value, DType):
        return value
    if isinstance(value, _core.DType):
        return _BY_CORE[value]
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError("unknown dtype name %r" % value)
    try:
        np_type = np.dtype(value)
    except TypeError:
        raise TypeError("cannot convert %r to a tensorweave dtype" % (value,)) from None
    for d in _NUMPY_DTYPES:
        if np.dtype(d.as_numpy_dtype) == np_type:
            return d
    if np_type.kind in "OSU":  # Object arrays (of bytes), bytes_ and str_ all hold strings.
        return string
    raise TypeError("NumPy dtype %s has no tensorweave equivalent" % np_type)
