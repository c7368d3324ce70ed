"""tf.make_tensor_proto and tf.make_ndarray: NumPy values <-> TensorProto messages, laid out
as TensorFlow lays them out (tensor_content for same-size arrays of more than one element
of a fixed-width type, else the typed *_val field, which may hold fewer values than the
shape: the last one repeats)."""
import numpy as np

from tensorweave import dtypes
from tensorweave import framework
from tensorweave.proto import tensor_pb2

# dtypes TensorFlow stores as raw bytes in tensor_content (not bool, string or uint16).
_CONTENT_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.int8,
                   dtypes.uint8, dtypes.int16)


def _value_field(dtype):
    """The TensorProto field of `dtype`'s values, and how to convert a NumPy array for it."""
    if dtype == dtypes.float16:
        return "half_val", lambda a: a.astype(np.float16).view(np.uint16).astype(np.int32)
    if dtype.is_complex:  # (real, imaginary) pairs, interleaved.
        real = dtype.real_dtype.as_numpy_dtype
        return ("scomplex_val" if dtype == dtypes.complex64 else "dcomplex_val",
                lambda a: np.stack([a.real, a.imag], -1).astype(real).ravel())
    return {dtypes.float32: "float_val", dtypes.float64: "double_val", dtypes.int64: "int64_val",
            dtypes.bool: "bool_val", dtypes.string: "string_val"}.get(dtype, "int_val"), None


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A TensorProto holding `values` (NumPy array, Python scalar or nested lists, bytes or
    str), as `dtype` (inferred as TF does when None) and `shape` (the values' own when None;
    fewer values than the shape holds are allowed, more are a ValueError)."""
    if isinstance(values, tensor_pb2.TensorProto):
        return values
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    array = framework.to_numpy(values, dtype)
    if dtype is None:
        dtype = dtypes.string if array.dtype.kind == "O" else dtypes.as_dtype(array.dtype)
    if shape is None:
        shape = list(array.shape)
        same_size, shape_size = True, array.size
    else:
        shape = [int(d) for d in shape]
        shape_size = int(np.prod(shape, dtype=np.int64))
        if allow_broadcast:
            if array.shape != tuple(shape) and array.size not in (0, 1):
                array = np.broadcast_to(array, shape)
        elif verify_shape and array.shape != tuple(shape):
            raise TypeError("Expected Tensor's shape: %s, but got %s." % (tuple(shape), array.shape))
        elif array.size > shape_size:
            raise ValueError("Too many elements provided. Takes at most %d, but got %d." % (shape_size, array.size))
        same_size = array.size == shape_size
    proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.SetInParent()  # TF writes the shape even for a scalar
    for d in shape:
        proto.tensor_shape.dim.add(size=d)
    if same_size and dtype in _CONTENT_DTYPES and shape_size > 1:
        proto.tensor_content = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
        return proto
    field, convert = _value_field(dtype)
    flat = array.ravel()
    if convert is not None:
        flat = convert(flat)
    getattr(proto, field).extend(flat.tolist())
    return proto


def make_ndarray(tensor):
    """The NumPy array a TensorProto holds (strings as an object array of bytes)."""
    dtype = _dtype_of(tensor)
    shape = [d.size for d in tensor.tensor_shape.dim]
    count = int(np.prod(shape, dtype=np.int64))
    if dtype == dtypes.string:
        values = list(tensor.string_val)
        values += [values[-1] if values else b""] * (count - len(values))
        out = np.empty(count, dtype=object)
        out[:] = values[:count] if count else []
        return out.reshape(shape)
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if tensor.tensor_content:
        return np.frombuffer(tensor.tensor_content, dtype=np_dtype.newbyteorder("<")).astype(np_dtype).reshape(shape)
    field, _ = _value_field(dtype)
    if dtype == dtypes.float16:
        values = np.array(list(tensor.half_val), dtype=np.uint16).view(np.float16)
    elif dtype.is_complex:
        parts = np.array(list(getattr(tensor, field)), dtype=dtype.real_dtype.as_numpy_dtype)
        if parts.size % 2:
            raise ValueError("TensorProto of %s has %d parts, not (real, imaginary) pairs" % (dtype.name, parts.size))
        values = (parts[0::2] + 1j * parts[1::2]).astype(np_dtype)
    else:
        values = np.array(list(getattr(tensor, field)), dtype=np_dtype)
    if values.size == 0:
        return np.zeros(shape, dtype=np_dtype)
    if values.size != count:
        values = np.pad(values, (0, count - values.size), "edge") if values.size < count else values[:count]
    return values.reshape(shape)


def _dtype_of(tensor):
    try:
        return dtypes.as_dtype(_enum_name(tensor.dtype))
    except (TypeError, KeyError, ValueError):
        raise TypeError("Unsupported tensor type: %s" % tensor.dtype) from None


def _enum_name(value):
    """DT_FLOAT -> "float32" and so on, for the DataType values this build has."""
    name = tensor_pb2.DataType.Name(value)
    return {"DT_FLOAT": "float32", "DT_DOUBLE": "float64", "DT_INT32": "int32", "DT_INT64": "int64",
            "DT_INT8": "int8", "DT_UINT8": "uint8", "DT_INT16": "int16", "DT_UINT16": "uint16",
            "DT_HALF": "float16", "DT_BOOL": "bool", "DT_STRING": "string", "DT_COMPLEX64": "complex64",
            "DT_COMPLEX128": "complex128"}[name]


def is_tensor(x):
    """Whether x is a graph tensor (or a variable, or a sparse tensor): TF's tf.is_tensor."""
    from tensorweave.sparse_tensor import SparseTensor
    return isinstance(x, (framework.Tensor, SparseTensor)) or hasattr(x, "_as_graph_element")


def is_numeric_tensor(tensor):
    """A tensor of a numeric dtype (floating, integer or complex)."""
    return isinstance(tensor, framework.Tensor) and (
        tensor.dtype.is_floating or tensor.dtype.is_integer or tensor.dtype.is_complex)


def get_static_value(tensor, partial=False):  # noqa: ARG001 - partial shapes are not folded
    """The value of tensor when it is known while building (TF's constant_value): a Const's
    value, the shape, size or rank of a tensor whose shape is known; None otherwise."""
    if not isinstance(tensor, framework.Tensor):
        return np.asarray(tensor) if not hasattr(tensor, "_as_graph_element") else None
    op = tensor.op
    if op.type == "Const":
        return make_ndarray(op.get_attr("value"))  # the attr is a TensorProto
    if op.type in ("Shape", "Size", "Rank"):
        source = op.inputs[0].shape
        if op.type == "Rank":
            return None if source.ndims is None else np.array(source.ndims, np.int32)
        if not source.is_fully_defined():
            return None
        dims = source.as_list()
        np_type = tensor.dtype.as_numpy_dtype
        return np.array(dims, np_type) if op.type == "Shape" else np.array(int(np.prod(dims)), np_type)
    if op.type == "Identity":
        return get_static_value(op.inputs[0])
    return None


constant_value = get_static_value


def dimension_value(dimension):
    """A static dim as an int, or None when unknown."""
    return getattr(dimension, "value", dimension)
