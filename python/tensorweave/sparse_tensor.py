"""tf.SparseTensor, minimal: the (indices, values, dense_shape) triple that parse_example
returns for VarLen features. Session.run fetches it as a tf.SparseTensorValue and feeds
one from a SparseTensorValue (tf.sparse_placeholder);
tf.sparse.to_dense / tf.sparse_tensor_to_dense / tf.sparse_to_dense make it dense (the
SparseToDense op). Not yet: sparse arithmetic and the other tf.sparse ops."""
import collections

from tensorweave.framework import TensorShape, _op_output, convert_to_tensor, name_scope
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


def sparse_placeholder(dtype, shape=None, name=None):
    """A SparseTensor of three placeholders, fed with a tf.SparseTensorValue."""
    from tensorweave.array_ops import placeholder
    shape = TensorShape(shape)
    rank = shape.ndims
    with name_scope(name or "SparseTensor"):
        return SparseTensor(placeholder(dtypes.int64, [None, rank], name="indices"),
                            placeholder(dtype, [None], name="values"),
                            placeholder(dtypes.int64, [rank], name="shape"))


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True, name=None):
    """A dense tensor of output_shape: default_value, with sparse_values at sparse_indices."""
    sparse_values = convert_to_tensor(sparse_values)
    indices = convert_to_tensor(sparse_indices)
    output_shape = convert_to_tensor(output_shape, dtype=indices.dtype)
    default_value = convert_to_tensor(default_value, dtype=sparse_values.dtype)
    return _op_output("SparseToDense", [indices, output_shape, sparse_values, default_value],
                      {"validate_indices": bool(validate_indices)}, name or "SparseToDense")


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """tf.sparse.to_dense: default_value (zero or b"" when None) where nothing is given."""
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    if default_value is None:
        default_value = b"" if sp_input.dtype == dtypes.string else 0
    with name_scope(name or "SparseToDense"):
        return sparse_to_dense(sp_input.indices, sp_input.dense_shape, sp_input.values, default_value,
                               validate_indices, "SparseToDense")


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """TF 1.x's name for tf.sparse.to_dense."""
    return to_dense(sp_input, default_value, validate_indices, name)
