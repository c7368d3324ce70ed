"""tf.SparseTensor, minimal: the (indices, values, dense_shape) triple that parse_example
returns for VarLen features. Session.run fetches it as a tf.SparseTensorValue. Not yet:
feeding one, sparse arithmetic, tf.sparse.to_dense."""
import collections

from tensorweave.framework import convert_to_tensor
from tensorweave import dtypes

SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])


class SparseTensor:
    """indices: int64 [N, rank]; values: [N]; dense_shape: int64 [rank]."""

    def __init__(self, indices, values, dense_shape):
        self._indices = convert_to_tensor(indices, dtype=dtypes.int64)
        self._values = convert_to_tensor(values)
        self._dense_shape = convert_to_tensor(dense_shape, dtype=dtypes.int64)

    indices = property(lambda self: self._indices)
    values = property(lambda self: self._values)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    graph = property(lambda self: self._values.graph)

    def _fetch_parts(self):
        """What Session.run fetches for it, and the class it rebuilds the value as."""
        return SparseTensorValue, [self._indices, self._values, self._dense_shape]

    def __repr__(self):
        return "SparseTensor(indices=%r, values=%r, dense_shape=%r)" % (self._indices, self._values,
                                                                        self._dense_shape)
