"""Constants, placeholders and array ops (tf.constant, tf.placeholder, tf.reshape, ...)."""
import builtins

import numpy as np

from tensorweave import dtypes, gen_ops
from tensorweave.framework import (Tensor, TensorShape, _op, _op_output, _packed_dtype, as_shape, convert_to_tensor,
                                   get_default_graph, to_numpy)


def constant(value, dtype=None, shape=None, name="Const"):
    """A Const holding `value` (broadcast to `shape` when given, as TensorFlow 1.x does for
    a scalar or a value with as many elements)."""
    array = to_numpy(value, dtype)
    if shape is not None:
        shape = as_shape(shape).as_list()
        if array.size == 1:
            array = np.full(shape, array.reshape(()), dtype=array.dtype)
        elif array.size == int(np.prod(shape, dtype=np.int64)):
            array = array.reshape(shape)
        else:
            raise ValueError("Too many elements provided. Needed at most %d, but received %d"
                             % (int(np.prod(shape)), array.size))
    dtype = dtypes.as_dtype(array.dtype)
    return _op_output("Const", [], {"value": np.require(array, requirements="C"), "dtype": dtype}, name,
                      graph=get_default_graph())


def placeholder(dtype, shape=None, name="Placeholder"):
    """A value fed at run time; `shape` may be None (any), an int, or dims with None for any size."""
    return _op_output("Placeholder", [], {"dtype": dtypes.as_dtype(dtype), "shape": TensorShape(shape)},
                      name, graph=get_default_graph())


def placeholder_with_default(input, shape, name="PlaceholderWithDefault"):  # noqa: A002
    input = convert_to_tensor(input)
    return _op_output("PlaceholderWithDefault", [input], {"dtype": input.dtype, "shape": TensorShape(shape)}, name)


def _int_tensor(value, name):
    """Shapes, axes, begins: int32 unless already a tensor."""
    if isinstance(value, Tensor) or hasattr(value, "_as_graph_element") or _packed_dtype(value) is not None:
        return convert_to_tensor(value)  # a tensor, or a list holding tensors (packed)
    if isinstance(value, TensorShape):
        value = value.as_list()
    return constant(value, dtype=dtypes.int32 if not _needs_int64(value) else dtypes.int64, name=name)


def _needs_int64(value):
    array = np.asarray(value)
    return array.size > 0 and array.dtype.kind in "iu" and (array.max() > np.iinfo(np.int32).max
                                                           or array.min() < np.iinfo(np.int32).min)


identity = gen_ops.identity  # generated from the registry (tools/op_gen)


def no_op(name="NoOp"):
    return _op("NoOp", [], name=name, graph=get_default_graph())


def group(*inputs, **kwargs):
    """A NoOp that runs after every input (ops or tensors)."""
    from tensorweave import framework
    deps = []
    for i in inputs:
        deps.extend(i if isinstance(i, (list, tuple)) else [i])
    with framework.control_dependencies(deps):
        return no_op(name=kwargs.get("name") or "group_deps")


def fill(dims, value, name="Fill"):
    return _op_output("Fill", [_int_tensor(dims, "dims"), convert_to_tensor(value)], name=name)


def zeros(shape, dtype=dtypes.float32, name="zeros"):
    return fill(shape, constant(0, dtype=dtype, name="zero"), name=name)


def ones(shape, dtype=dtypes.float32, name="ones"):
    return fill(shape, constant(1, dtype=dtype, name="one"), name=name)


def zeros_like(tensor, dtype=None, name="ZerosLike"):
    out = _op_output("ZerosLike", [convert_to_tensor(tensor)], name=name)
    return out if dtype is None else cast(out, dtype)


def ones_like(tensor, dtype=None, name="OnesLike"):
    out = _op_output("OnesLike", [convert_to_tensor(tensor)], name=name)
    return out if dtype is None else cast(out, dtype)


# tf.bitcast(input, type): the same bytes as another dtype (a last dim added or dropped when
# the sizes differ); generated from the registry (tools/op_gen).
bitcast = gen_ops.bitcast


def cast(x, dtype, name="Cast"):
    x = convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype == dtype:
        return x
    return _op_output("Cast", [x], {"DstT": dtype}, name)


def shape(input, name="Shape", out_type=dtypes.int32):  # noqa: A002
    return _op_output("Shape", [convert_to_tensor(input)], {"out_type": dtypes.as_dtype(out_type)}, name)


def size(input, name="Size", out_type=dtypes.int32):  # noqa: A002
    return _op_output("Size", [convert_to_tensor(input)], {"out_type": dtypes.as_dtype(out_type)}, name)


rank = gen_ops.rank  # generated from the registry (tools/op_gen)


def reshape(tensor, shape, name="Reshape"):  # noqa: A002 - TensorFlow's argument names.
    return _op_output("Reshape", [convert_to_tensor(tensor), _int_tensor(shape, "shape")], name=name)


def squeeze(input, axis=None, name="Squeeze", squeeze_dims=None):  # noqa: A002
    axis = squeeze_dims if axis is None else axis
    axis = [] if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    return _op_output("Squeeze", [convert_to_tensor(input)], {"squeeze_dims": axis}, name)


def expand_dims(input, axis=None, name="ExpandDims", dim=None):  # noqa: A002
    axis = dim if axis is None else axis
    return _op_output("ExpandDims", [convert_to_tensor(input), _int_tensor(axis, "dim")], name=name)


def slice(input_, begin, size, name="Slice"):  # noqa: A001 - tf.slice.
    """size -1 takes everything to the end of that dimension."""
    return _op_output("Slice", [convert_to_tensor(input_), _int_tensor(begin, "begin"), _int_tensor(size, "size")],
                      name=name)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, name="StridedSlice"):
    if ellipsis_mask or new_axis_mask:
        raise ValueError("strided_slice: ellipsis_mask and new_axis_mask are not supported")
    if strides is None:
        strides = [1] * len(begin)
    return _op_output("StridedSlice",
                      [convert_to_tensor(input_), _int_tensor(begin, "begin"), _int_tensor(end, "end"),
                       _int_tensor(strides, "strides")],
                      {"begin_mask": begin_mask, "end_mask": end_mask, "shrink_axis_mask": shrink_axis_mask},
                      name)


def _getitem(tensor, key):
    """tensor[key] for ints and slices (NumPy basic indexing without ... or newaxis)."""
    if not isinstance(key, tuple):
        key = (key,)
    begin, end, strides = [], [], []
    begin_mask = end_mask = shrink = 0
    for i, k in enumerate(key):
        if isinstance(k, (int, np.integer)):
            begin.append(int(k))
            end.append(int(k) + 1)
            strides.append(1)
            shrink |= 1 << i
        elif isinstance(k, builtins.slice):
            if k.step == 0:
                raise ValueError("slice step cannot be zero")
            begin.append(0 if k.start is None else k.start)
            end.append(0 if k.stop is None else k.stop)
            strides.append(1 if k.step is None else k.step)
            begin_mask |= (k.start is None) << i
            end_mask |= (k.stop is None) << i
        else:
            raise TypeError("Only integers and slices are valid tensor indices, got %r" % (k,))
    return strided_slice(tensor, begin, end, strides, begin_mask=begin_mask, end_mask=end_mask,
                         shrink_axis_mask=shrink, name="strided_slice")


def concat(values, axis, name="concat"):
    values = [convert_to_tensor(v) for v in values]
    if len(values) == 1:
        return identity(values[0], name=name)
    return _op_output("ConcatV2", values + [_int_tensor(axis, "axis")], name=name)


def stack(values, axis=0, name="stack"):
    return _op_output("Pack", [convert_to_tensor(v) for v in values], {"axis": axis}, name)


def unstack(value, num=None, axis=0, name="unstack"):
    value = convert_to_tensor(value)
    if num is None:
        dims = value.shape.dims
        if dims is None or dims[axis] is None:
            raise ValueError("Cannot infer num from shape %s" % value.shape)
        num = dims[axis]
    return _op("Unpack", [value], {"num": num, "axis": axis}, name).outputs


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    value = convert_to_tensor(value)
    if isinstance(num_or_size_splits, (int, np.integer)):
        return _op("Split", [_int_tensor(axis, "split_dim"), value], {"num_split": int(num_or_size_splits)},
                   name).outputs
    sizes = _int_tensor(num_or_size_splits, "size_splits")
    count = num if num is not None else len(num_or_size_splits)
    return _op("SplitV", [value, sizes, _int_tensor(axis, "split_dim")], {"num_split": count}, name).outputs


def transpose(a, perm=None, name="transpose"):
    a = convert_to_tensor(a)
    if perm is None:
        if a.shape.ndims is None:
            raise ValueError("transpose without perm needs a tensor of known rank")
        perm = list(reversed(builtins.range(a.shape.ndims)))
    return _op_output("Transpose", [a, _int_tensor(perm, "perm")], name=name)


def tile(input, multiples, name="Tile"):  # noqa: A002
    return _op_output("Tile", [convert_to_tensor(input), _int_tensor(multiples, "multiples")], name=name)


def pad(tensor, paddings, mode="CONSTANT", name="Pad"):
    mode = mode.upper()
    if mode in ("REFLECT", "SYMMETRIC"):  # the edge not repeated / repeated (MirrorPad)
        return _op_output("MirrorPad", [convert_to_tensor(tensor), _int_tensor(paddings, "paddings")],
                          {"mode": mode}, name=name if name != "Pad" else "MirrorPad")
    if mode != "CONSTANT":
        raise ValueError(f"Unknown padding mode: {mode}")
    return _op_output("Pad", [convert_to_tensor(tensor), _int_tensor(paddings, "paddings")], name=name)


def broadcast_to(input, shape, name="BroadcastTo"):  # noqa: A002
    return _op_output("BroadcastTo", [convert_to_tensor(input), _int_tensor(shape, "shape")], name=name)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - tf.range.
    if limit is None:
        start, limit = 0, start
    inputs = [start, limit, delta]
    if dtype is None:
        dtype = dtypes.float32 if any(isinstance(v, float) for v in inputs) else dtypes.int32
        tensors = [v for v in inputs if isinstance(v, Tensor)]
        if tensors:
            dtype = tensors[0].dtype
    inputs = [convert_to_tensor(v, dtype=dtype) if not isinstance(v, Tensor) else v for v in inputs]
    return _op_output("Range", inputs, name=name)


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):  # noqa: ARG001
    """tf.gather: slices of params along axis (default batch_dims) at indices, per batch row
    when batch_dims > 0; out-of-range indices are an error (validate_indices is accepted and
    ignored, as in TF 1.x on CPU)."""
    return _op_output("GatherV2", [convert_to_tensor(params), convert_to_tensor(indices),
                                   _int_tensor(batch_dims if axis is None else axis, "axis")],
                      {"batch_dims": batch_dims}, name or "GatherV2")


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """tf.boolean_mask: the elements (rows) of tensor where mask is true, as TF 1.x's
    _apply_mask_1d does it (Where, Squeeze, GatherV2); a mask of rank k > 1 first flattens
    the leading k dims of both (their shapes must be known)."""
    from tensorweave import framework, math_ops
    with framework.name_scope(name):
        tensor = convert_to_tensor(tensor)
        mask = convert_to_tensor(mask)
        axis = 0 if axis is None else axis
        k = mask.shape.ndims
        if k is None:
            raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.")
        if k == 0:
            raise ValueError("mask cannot be scalar.")
        if k > 1 or axis != 0:
            dims = tensor.shape.as_list()
            lead = int(np.prod(dims[axis:axis + k]))
            tensor = reshape(tensor, dims[:axis] + [lead] + dims[axis + k:])
            mask = reshape(mask, [-1])
        indices = squeeze(math_ops.where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)


def one_hot(indices, depth, on_value=None, off_value=None, axis=-1, dtype=None, name="one_hot"):
    dtype = dtypes.as_dtype(dtype or dtypes.float32)
    inputs = [convert_to_tensor(indices), _int_tensor(depth, "depth"),
              convert_to_tensor(1 if on_value is None else on_value, dtype=dtype),
              convert_to_tensor(0 if off_value is None else off_value, dtype=dtype)]
    return _op_output("OneHot", inputs, {"axis": axis}, name)
