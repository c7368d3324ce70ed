"""Shape plumbing with TensorFlow 1's names: tf.shape_n, tf.identity_n, tf.ensure_shape,
tf.broadcast_dynamic_shape (ops) and tf.broadcast_static_shape (on static shapes)."""
from tensorweave import dtypes
from tensorweave.framework import Tensor, TensorShape, _op, _op_output, as_shape, convert_to_tensor


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002 - TensorFlow's argument name
    """The shapes of the tensors in `input`, as a list of vectors."""
    # One dtype for the list, as TensorFlow: Python numbers take the first tensor's.
    tensors = [convert_to_tensor(x) for x in input if isinstance(x, Tensor) or hasattr(x, "dtype")]
    dtype = tensors[0].dtype if tensors else None
    tensors = [x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype if not hasattr(x, "dtype") else None)
               for x in input]
    return list(_op("ShapeN", tensors, {"out_type": dtypes.as_dtype(out_type)}, name or "ShapeN").outputs)


def identity_n(input, name=None):  # noqa: A002
    """The tensors in `input` passed through together (one op)."""
    return list(_op("IdentityN", [convert_to_tensor(x) for x in input], name=name or "IdentityN").outputs)


def ensure_shape(x, shape, name=None):
    """x, checked at run time to have a shape compatible with `shape` (None dims match any)."""
    return _op_output("EnsureShape", [convert_to_tensor(x)], {"shape": as_shape(shape)}, name or "EnsureShape")


def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape that tensors of shapes shape_x and shape_y broadcast to (int vectors)."""
    x = convert_to_tensor(shape_x)
    y = convert_to_tensor(shape_y, dtype=x.dtype)
    return _op_output("BroadcastArgs", [x, y], name="BroadcastArgs")


def broadcast_static_shape(shape_x, shape_y):
    """The TensorShape shape_x and shape_y broadcast to; ValueError when they cannot."""
    x, y = as_shape(shape_x), as_shape(shape_y)
    if x.ndims is None or y.ndims is None:
        return TensorShape(None)
    a, b = x.as_list(), y.as_list()
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for da, db in zip(a, b):
        if da == 1 or db == 1:
            out.append(db if da == 1 else da)
        elif da is None or db is None:  # an unknown dim against one above 1: that one
            out.append(da if db is None else db)
        elif da == db:
            out.append(da)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {x} and {y}")
    return TensorShape(out)
