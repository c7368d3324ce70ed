"""The reductions TensorFlow 1 builds from ops (reduce_logsumexp, count_nonzero) or runs as
the bool ops All/Any, with TF1's deprecated argument spellings (keep_dims,
reduction_indices); and tf.stop_gradient, which logsumexp needs."""
from tensorweave import array_ops, dtypes, gen_ops
from tensorweave.framework import _op_output, convert_to_tensor, name_scope
from tensorweave.math_fn_ops import is_finite
from tensorweave.array_ops import cast
from tensorweave.math_ops import _reduction, add, exp, log, not_equal, reduce_max, reduce_sum, subtract

reduce_all = _reduction("All", "All")
reduce_any = _reduction("Any", "Any")


stop_gradient = gen_ops.stop_gradient  # generated from the registry (tools/op_gen)


def _keep(keepdims, keep_dims):
    return bool(keepdims if keepdims is not None else keep_dims)


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """log(sum(exp(x))) over axis, computed as TensorFlow does: shifted by the (finite) max,
    which carries no gradient."""
    axis = reduction_indices if axis is None else axis
    keepdims = _keep(keepdims, keep_dims)
    with name_scope(name or "ReduceLogSumExp"):
        x = convert_to_tensor(input_tensor)
        raw_max = reduce_max(x, axis=axis, keepdims=True)
        my_max = stop_gradient(_op_output("SelectV2", [is_finite(raw_max), raw_max,
                                                       array_ops.constant(0, dtype=raw_max.dtype)], name="SelectV2"))
        result = log(reduce_sum(exp(subtract(x, my_max)), axis=axis, keepdims=keepdims))
        if not keepdims:
            my_max = array_ops.reshape(my_max, array_ops.shape(result))
        return add(result, my_max)


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None, reduction_indices=None,
                  keep_dims=None, input=None):  # noqa: A002 - TensorFlow's argument name
    """The number of elements != 0 (or True) over axis, as `dtype`."""
    input_tensor = input if input_tensor is None else input_tensor
    axis = reduction_indices if axis is None else axis
    with name_scope(name or "count_nonzero"):
        x = convert_to_tensor(input_tensor)
        predicate = x if x.dtype == dtypes.bool else not_equal(x, array_ops.zeros([], dtype=x.dtype))
        return cast(reduce_sum(cast(predicate, dtypes.int64), axis=axis, keepdims=_keep(keepdims, keep_dims)),
                    dtype=dtype)
