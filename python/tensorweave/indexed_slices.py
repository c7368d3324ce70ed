"""tf.IndexedSlices: a sparse gradient, the rows `values` of a tensor of shape `dense_shape`
at `indices` (rows may repeat: they add). The gradient of a gather (an embedding lookup) is
one: the C++ gradient pass sums those rows into the table's shape with UnsortedSegmentSum,
and tf.gradients / compute_gradients hand back the rows and ids feeding that op instead
(the dense op is then never run). Converted to a dense tensor only where one is needed
(tf.convert_to_tensor), with TensorFlow 1.x's warning when that tensor may be huge."""
import collections

import numpy as np

from tensorweave import tf_logging
from tensorweave.framework import Tensor

_LARGE_DENSE_ELEMENTS = 100000000  # TensorFlow 1.x warns from here on

# What Session.run returns for an IndexedSlices (TensorFlow's class of that name).
IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])


class IndexedSlices:
    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape  # a tuple of ints when known while building, else a tensor or None
        self._dense = None

    values = property(lambda self: self._values)
    indices = property(lambda self: self._indices)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    graph = property(lambda self: self._values.graph)
    op = property(lambda self: self._values.op)
    name = property(lambda self: self._values.name)
    device = property(lambda self: self._values.device)

    def __repr__(self):
        return "IndexedSlices(indices=%s, values=%s, dense_shape=%s)" % (self._indices, self._values,
                                                                          self._dense_shape)

    def _fetch_parts(self):
        """What Session.run fetches for it (rows, ids, shape), and the class of the value."""
        from tensorweave import array_ops
        shape = self._dense_shape
        if isinstance(shape, tuple):
            shape = array_ops.constant(np.array(shape, np.int32))
        elif shape is None:
            raise TypeError("Fetching an IndexedSlices without dense_shape is not supported")
        return IndexedSlicesValue, [self._values, self._indices, shape]

    def _rows(self):
        from tensorweave import array_ops
        if isinstance(self._dense_shape, tuple):
            return array_ops.constant(self._dense_shape[0], dtype=self._indices.dtype)
        return array_ops.cast(array_ops.slice(self._dense_shape, [0], [1])[0], self._indices.dtype)

    def _as_graph_element(self):
        """The dense tensor (made once): the rows summed into place."""
        if self._dense is None:
            from tensorweave import math_ops
            if self._dense_shape is None:
                raise ValueError("Tensor conversion requested for IndexedSlices without dense_shape: %s" % self)
            if not isinstance(self._dense_shape, tuple):
                tf_logging.warning("Converting sparse IndexedSlices to a dense Tensor of unknown shape. "
                                   "This may consume a large amount of memory.")
            elif int(np.prod(self._dense_shape)) >= _LARGE_DENSE_ELEMENTS:
                tf_logging.warning("Converting sparse IndexedSlices to a dense Tensor with %d elements. "
                                   "This may consume a large amount of memory." % int(np.prod(self._dense_shape)))
            self._dense = math_ops.unsorted_segment_sum(self._values, self._indices, self._rows())
        return self._dense


def _is_gather_gradient_sum(t):
    """Whether t is the UnsortedSegmentSum a gather's gradient ends in (rows summed by id)."""
    op = t.op
    return (op.type == "UnsortedSegmentSum" and op.name.split("/")[0].startswith("gradients")
            and op.inputs[1].shape.ndims == 1)


def as_sparse_gradient(grad, x):
    """`grad` (the C++ pass's dense gradient of x) as IndexedSlices when it is a sum of gathered
    rows (one gather, or AddN of several: their rows concatenated, as TensorFlow's AddN of
    IndexedSlices); else grad itself."""
    if not isinstance(grad, Tensor):
        return grad
    parts = [grad] if grad.op.type != "AddN" else list(grad.op.inputs)
    if not parts or not all(_is_gather_gradient_sum(p) for p in parts):
        return grad
    shape = x.get_shape() if hasattr(x, "get_shape") else None
    if shape is not None and shape.is_fully_defined():
        dense_shape = tuple(shape.as_list())
    else:
        from tensorweave import array_ops
        dense_shape = array_ops.shape(grad)
    values = [p.op.inputs[0] for p in parts]
    indices = [p.op.inputs[1] for p in parts]
    if len(parts) > 1:
        from tensorweave import array_ops
        if len({i.dtype for i in indices}) > 1:
            return grad
        values, indices = [array_ops.concat(values, 0)], [array_ops.concat(indices, 0)]
    return IndexedSlices(values[0], indices[0], dense_shape)


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """An IndexedSlices or SparseTensor as it is (its dtype checked against `dtype`), anything
    else through tf.convert_to_tensor (TF's function of this name)."""
    from tensorweave import dtypes
    from tensorweave.framework import convert_to_tensor
    from tensorweave.sparse_tensor import SparseTensor
    if isinstance(value, (Tensor, IndexedSlices, SparseTensor)):
        if dtype and dtypes.as_dtype(dtype) != value.dtype:
            raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r" %
                             (dtypes.as_dtype(dtype).name, value.dtype.name, value))
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)
