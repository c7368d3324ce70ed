"""Partitioned variables: tf.get_variable(..., partitioner=p) makes one variable per shard
("<name>/part_<i>", split along one axis) and returns a PartitionedVariable, which
tf.nn.embedding_lookup takes as its list of shards and tf.train.replica_device_setter
spreads over the ps tasks like any other variables. Partitioners: tf.fixed_size_partitioner,
tf.min_max_variable_partitioner, tf.variable_axis_size_partitioner."""
import math

import numpy as np

from tensorweave import array_ops, dtypes
from tensorweave.framework import TensorShape, as_shape, convert_to_tensor


def _element_bytes(dtype, bytes_per_string_element):
    if dtype == dtypes.string:
        return bytes_per_string_element
    return np.dtype(dtype.as_numpy_dtype).itemsize


def fixed_size_partitioner(num_shards, axis=0):
    """num_shards partitions along axis."""
    def partitioner(shape, dtype):  # noqa: ARG001
        shape = as_shape(shape)
        parts = [1] * shape.ndims
        parts[axis] = num_shards
        return parts
    return partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10, bytes_per_string_element=16):
    """As many partitions along axis as give slices of at least min_slice_size bytes, at
    least 1 and at most max_partitions (and the axis' size)."""
    def partitioner(shape, dtype):
        shape = as_shape(shape)
        if axis >= shape.ndims:
            raise ValueError("Can not partition variable along axis %d when shape is only %s" % (axis, shape))
        dtype = dtypes.as_dtype(dtype)
        per_element = _element_bytes(dtype, bytes_per_string_element)
        wanted = int(math.ceil(shape.num_elements() * per_element / min_slice_size))
        parts = [1] * shape.ndims
        parts[axis] = max(1, min(shape.as_list()[axis], max_partitions, wanted))
        return parts
    return partitioner


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16, max_shards=None):
    """Partitions along axis so that each shard holds at most max_shard_bytes (as TF's)."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive.")
    if max_shards is not None and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def partitioner(shape, dtype):
        shape = as_shape(shape)
        dtype = dtypes.as_dtype(dtype)
        per_element = _element_bytes(dtype, bytes_per_string_element)
        dims = shape.as_list()
        slice_bytes = per_element * int(math.prod(d for i, d in enumerate(dims) if i != axis))
        rows_per_shard = max(1, int(math.floor(max_shard_bytes / slice_bytes)))
        shards = int(math.ceil(dims[axis] / rows_per_shard))
        if max_shards:
            shards = min(shards, max_shards)
        parts = [1] * len(dims)
        parts[axis] = shards
        return parts
    return partitioner


def shard_sizes(size, n):
    """Rows of each of n shards of `size` rows: the first size % n shards one row longer."""
    base, extras = divmod(size, n)
    return [base + 1 if i < extras else base for i in range(n)]


class PartitionedVariable:
    """The shards of one variable split along `axis` (TensorFlow's class of that name)."""

    def __init__(self, name, shape, dtype, variable_list, partitions):
        self._name = name
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._variable_list = list(variable_list)
        self._partitions = list(partitions)
        self._axis = next((i for i, p in enumerate(self._partitions) if p > 1), 0)

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self):
        return len(self._variable_list)

    def _get_variable_list(self):
        return list(self._variable_list)

    def _get_partitions(self):
        return list(self._partitions)

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    graph = property(lambda self: self._variable_list[0].graph)

    def get_shape(self):
        return self._shape

    def as_tensor(self):
        """The whole variable: the shards' values concatenated along the partition axis."""
        return array_ops.concat([v.value() if hasattr(v, "value") else convert_to_tensor(v)
                                 for v in self._variable_list], self._axis)


def get_partitioned_variable(get_variable, name, shape, dtype, initializer, partitioner, **kwargs):
    """tf.get_variable with a partitioner: the shards made (or reused) by `get_variable`."""
    if shape is None:
        if initializer is None or callable(initializer):
            raise ValueError("Shape of a new partitioned variable (%s) must be fully defined, but instead was None."
                             % name)
        initializer = convert_to_tensor(initializer, dtype=dtype)
        shape, dtype = initializer.shape, initializer.dtype
    shape = as_shape(shape)
    dtype = dtypes.as_dtype(dtype or dtypes.float32)
    if not shape.is_fully_defined():
        raise ValueError("Shape of a new partitioned variable (%s) must be fully defined, but instead was %s."
                         % (name, shape))
    parts = [int(p) for p in partitioner(shape=shape, dtype=dtype)]
    if len(parts) != shape.ndims or any(p < 1 for p in parts):
        raise ValueError("partitioner returned %s for a variable of shape %s" % (parts, shape))
    split_axes = [i for i, p in enumerate(parts) if p > 1]
    if len(split_axes) > 1:
        raise ValueError("Can only slice a variable along one dimension: shape: %s, partitioning: %s" % (shape, parts))
    axis = split_axes[0] if split_axes else 0
    dims = shape.as_list()
    n = parts[axis]
    if n > dims[axis]:
        raise ValueError("Partitioner asked for %d shards of axis %d of size %d" % (n, axis, dims[axis]))
    value = None
    if initializer is not None and not callable(initializer):
        value = convert_to_tensor(initializer, dtype=dtype)
    shards, offset = [], 0
    for i, rows in enumerate(shard_sizes(dims[axis], n)):
        shard_dims = list(dims)
        shard_dims[axis] = rows
        shard_init = initializer
        if value is not None:  # a value: each shard starts from its slice of it
            begin = [0] * len(dims)
            begin[axis] = offset
            shard_init = array_ops.slice(value, begin, shard_dims)
        shards.append(get_variable("%s/part_%d" % (name, i), shape=None if value is not None else shard_dims,
                                   dtype=dtype, initializer=shard_init, **kwargs))
        offset += rows
    full_name = shards[0].op.name.rsplit("/part_0", 1)[0]
    offset = 0
    for shard in shards:  # The Saver saves each shard as its block of the whole variable.
        shard_dims = shard.shape.as_list()
        var_offset = [0] * len(dims)
        var_offset[axis] = offset
        shard._set_save_slice_info(shard.SaveSliceInfo(full_name, dims, var_offset, shard_dims))
        offset += shard_dims[axis]
    return PartitionedVariable(full_name, TensorShape(dims), dtype, shards, parts)
