"""tf.io.parse_example / parse_single_example and the feature specs (FixedLenFeature,
VarLenFeature, FixedLenSequenceFeature), as TensorFlow 1.x: dense features come back as
Tensors, VarLen features as SparseTensors, in a dict keyed by feature name."""
import collections

import numpy as np

from tensorweave import dtypes
from tensorweave.array_ops import constant
from tensorweave.framework import TensorShape, _op, convert_to_tensor, name_scope
from tensorweave.sparse_tensor import SparseTensor

_EXAMPLE_DTYPES = (dtypes.float32, dtypes.int64, dtypes.string)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any length in each example, parsed to a SparseTensor."""


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of one fixed shape in every example; without default_value it is required."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """Steps of one fixed shape, any number of them: padded with default_value (a scalar)
    to the longest example of the batch."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


def _check_dtype(key, dtype):
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _EXAMPLE_DTYPES:
        raise ValueError("Feature %s: unsupported dtype %s (float32, int64 or string)" % (key, dtype.name))
    return dtype


def _raw_params(features):
    """(sparse keys and dtypes, dense keys, dtypes, shapes and defaults) as TensorFlow's
    parsing_ops orders them: features sorted by key."""
    if not features:
        raise ValueError("Missing: features was %s." % features)
    sparse_keys, sparse_types = [], []
    dense_keys, dense_types, dense_shapes, dense_defaults = [], [], [], []
    for key in sorted(features):
        feature = features[key]
        if isinstance(feature, VarLenFeature):
            sparse_keys.append(key)
            sparse_types.append(_check_dtype(key, feature.dtype))
        elif isinstance(feature, FixedLenFeature):
            dtype = _check_dtype(key, feature.dtype)
            shape = TensorShape(feature.shape)
            if shape.ndims is None or any(d is None for d in shape.dims):
                if shape.ndims and shape.dims[0] is None:
                    raise ValueError("First dimension of shape for feature %s unknown. "
                                     "Consider using FixedLenSequenceFeature." % key)
                raise ValueError("All dimensions of shape for feature %s need to be known but received %s."
                                 % (key, feature.shape))
            if feature.default_value is None:
                default = constant(np.zeros([0], dtype=dtype.as_numpy_dtype if dtype != dtypes.string else object),
                                   dtype=dtype)
            else:
                value = np.asarray(feature.default_value, dtype=dtype.as_numpy_dtype if dtype != dtypes.string else object)
                if value.size != int(np.prod(shape.dims, dtype=np.int64)):
                    raise ValueError("Cannot reshape a tensor with %d elements to shape %s (feature %s's default_value)"
                                     % (value.size, shape.dims, key))
                default = constant(value.reshape(shape.dims), dtype=dtype)
            dense_keys.append(key)
            dense_types.append(dtype)
            dense_shapes.append(shape)
            dense_defaults.append(default)
        elif isinstance(feature, FixedLenSequenceFeature):
            if not feature.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
            dtype = _check_dtype(key, feature.dtype)
            shape = TensorShape(feature.shape)
            if shape.ndims is None or any(d is None for d in shape.dims):
                raise ValueError("All dimensions of shape for feature %s need to be known but received %s."
                                 % (key, feature.shape))
            pad = feature.default_value
            if pad is None:
                pad = b"" if dtype == dtypes.string else 0
            dense_keys.append(key)
            dense_types.append(dtype)
            dense_shapes.append(TensorShape([None] + list(shape.dims)))
            dense_defaults.append(constant(pad, dtype=dtype))
        else:
            raise ValueError("Invalid feature %s: %r" % (key, feature))
    return sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes, dense_defaults


def _results(op, sparse_keys, dense_keys):
    n = len(sparse_keys)
    outputs = op.outputs
    result = {}
    for i, key in enumerate(sparse_keys):
        result[key] = SparseTensor(outputs[i], outputs[n + i], outputs[2 * n + i])
    for i, key in enumerate(dense_keys):
        result[key] = outputs[3 * n + i]
    return result


def _attrs(sparse_types, dense_types, dense_shapes):
    # Lists go to the graph as core values (create_op converts only single DTypes and shapes).
    return {"sparse_types": [t._core for t in sparse_types], "Tdense": [t._core for t in dense_types],
            "dense_shapes": [s._as_core() for s in dense_shapes]}


def parse_example(serialized, features, name=None, example_names=None):
    """Parses a batch (a string vector) of serialized tf.train.Example protos."""
    params = _raw_params(features)
    sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes, dense_defaults = params
    with name_scope(name or "ParseExample"):
        serialized = convert_to_tensor(serialized, dtype=dtypes.string)
        names = convert_to_tensor(example_names if example_names is not None else np.zeros([0], dtype=object),
                                  dtype=dtypes.string)
        keys = [constant(k, dtype=dtypes.string) for k in sparse_keys + dense_keys]
        attrs = _attrs(sparse_types, dense_types, dense_shapes)
        attrs.update(Nsparse=len(sparse_keys), Ndense=len(dense_keys))
        op = _op("ParseExample", [serialized, names] + keys + dense_defaults, attrs, "ParseExample")
    return _results(op, sparse_keys, dense_keys)


def parse_single_example(serialized, features, name=None, example_names=None):
    """Parses one serialized tf.train.Example (a string scalar): no batch dimension."""
    del example_names  # TensorFlow ignores them for one example too.
    params = _raw_params(features)
    sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes, dense_defaults = params
    with name_scope(name or "ParseSingleExample"):
        serialized = convert_to_tensor(serialized, dtype=dtypes.string)
        attrs = _attrs(sparse_types, dense_types, dense_shapes)
        attrs.update(num_sparse=len(sparse_keys), sparse_keys=list(sparse_keys), dense_keys=list(dense_keys))
        op = _op("ParseSingleExample", [serialized] + dense_defaults, attrs, "ParseSingleExample")
    return _results(op, sparse_keys, dense_keys)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """One tensor per column of the CSV `records` (tf.io.decode_csv): record_defaults gives each
    column's dtype and its default ([] or an empty tensor: the column is required)."""
    if select_cols is not None and any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols is not None and select_cols[0] < 0:
        raise ValueError("select_cols contains negative values.")
    if select_cols is not None and len(select_cols) != len(record_defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    records = convert_to_tensor(records, dtype=dtypes.string)
    defaults = [convert_to_tensor(d) for d in record_defaults]
    op = _op("DecodeCSV", [records] + defaults,
             {"OUT_TYPE": [d.dtype._core for d in defaults], "field_delim": field_delim,
              "use_quote_delim": use_quote_delim, "na_value": na_value, "select_cols": list(select_cols or [])},
             name or "DecodeCSV")
    return list(op.outputs)
