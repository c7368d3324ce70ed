"""Sorting, searching and counting as TensorFlow 1 builds them from other ops: sort / argsort
(TopKV2 over the axis, moved last), searchsorted, setdiff1d, unique_with_counts, bincount,
histogram_fixed_width. Each follows TensorFlow's definition of the result (tie order,
dtypes, defaults); the searches compare every pair, O(n m), where TensorFlow has kernels."""
from tensorweave import array_ops, dtypes
from tensorweave.array_ops import cast
from tensorweave.framework import convert_to_tensor, name_scope
from tensorweave.math_fn_ops import floor
from tensorweave.math_ops import (clip_by_value, equal, greater_equal, less, less_equal, logical_and, logical_not,
                                  maximum, minimum, reduce_max, reduce_sum, unsorted_segment_sum)
from tensorweave.math_reduce_ops import reduce_any
from tensorweave.nn import top_k
from tensorweave.partition_ops import unique


def _descending(values, axis, return_argsort):
    """TopKV2 of the whole axis: the axis moved last and back (TensorFlow's _descending_sort)."""
    rank = values.shape.ndims
    if rank is None:
        raise ValueError("sort needs a tensor of known rank")
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise ValueError("axis %d is out of range for a tensor of rank %d" % (axis, rank))
    perm = None
    if axis != rank - 1:
        perm = list(range(rank))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        values = array_ops.transpose(values, perm)
    result = top_k(values, array_ops.shape(values)[-1])
    out = result.indices if return_argsort else result.values
    return array_ops.transpose(out, perm) if perm is not None else out


def _sort(values, axis, direction, return_argsort):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError("direction must be ASCENDING or DESCENDING, got %r" % (direction,))
    if not isinstance(axis, int):
        raise TypeError("axis must be a constant int, got %r" % (axis,))
    if direction == "DESCENDING":
        return _descending(values, axis, return_argsort)
    # Ascending: sort a reversed order descending. Integers as -x - 1, which cannot overflow.
    if values.dtype.is_integer:
        out = _descending(-values - 1, axis, return_argsort)
        return out if return_argsort else -out - 1
    out = _descending(-values, axis, return_argsort)
    return out if return_argsort else -out


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """The values sorted along axis (ties keep their order)."""
    with name_scope(name or "sort"):
        return _sort(convert_to_tensor(values, name="values"), axis, direction, False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):  # noqa: ARG001 - always stable
    """The int32 indices that sort values along axis; equal values keep their order."""
    with name_scope(name or "argsort"):
        return _sort(convert_to_tensor(values, name="values"), axis, direction, True)


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """For each of values [..., m], its insertion index into the matching row of
    sorted_sequence [..., n]: before equal entries ("left") or after them ("right")."""
    if side not in ("left", "right"):
        raise ValueError("side must be 'left' or 'right', got %r" % (side,))
    with name_scope(name or "searchsorted"):
        seq = convert_to_tensor(sorted_sequence, name="sorted_sequence")
        vals = convert_to_tensor(values, name="values")
        if seq.shape.ndims is not None and vals.shape.ndims is not None and seq.shape.ndims != vals.shape.ndims:
            raise ValueError("sorted_sequence and values must have the same rank, got %d and %d"
                             % (seq.shape.ndims, vals.shape.ndims))
        before = less if side == "left" else less_equal
        # [..., m, n]: whether sequence element j goes before value i.
        goes_before = before(array_ops.expand_dims(seq, -2), array_ops.expand_dims(vals, -1))
        return reduce_sum(cast(goes_before, out_type), axis=-1)


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """(out, idx): the elements of the vector x not in y, in x's order, and their positions in x."""
    with name_scope(name or "ListDiff"):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype) if not hasattr(y, "dtype") else convert_to_tensor(y)
        keep = logical_not(reduce_any(equal(array_ops.expand_dims(x, 1), array_ops.expand_dims(y, 0)), axis=1))
        positions = array_ops.range(array_ops.size(x), dtype=index_dtype)
        return array_ops.boolean_mask(x, keep), array_ops.boolean_mask(positions, keep)


listdiff = setdiff1d


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """(y, idx, count): tf.unique's values and positions, and how often each value occurs."""
    with name_scope(name or "UniqueWithCounts"):
        y, idx = unique(x, out_idx=out_idx)
        count = unsorted_segment_sum(array_ops.ones_like(idx), idx, array_ops.size(y, out_type=out_idx))
        return y, idx, count


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32, name=None):
    """How often each value 0, 1, ... occurs in the non-negative int32 arr (or the sum of its
    weights), over max(arr) + 1 bins, at least minlength and at most maxlength of them;
    values past the last bin are not counted."""
    with name_scope(name or "bincount"):
        arr = convert_to_tensor(arr, name="arr", dtype=dtypes.int32)
        flat = array_ops.reshape(arr, [-1])
        size = maximum(reduce_max(array_ops.concat([flat, [-1]], 0)) + 1, 0)
        if minlength is not None:
            size = maximum(size, convert_to_tensor(minlength, dtype=dtypes.int32))
        if maxlength is not None:
            size = minimum(size, convert_to_tensor(maxlength, dtype=dtypes.int32))
        if weights is None:
            counted = array_ops.ones_like(flat, dtype=dtype)
        else:
            counted = array_ops.reshape(convert_to_tensor(weights, name="weights"), [-1])
            dtype = counted.dtype
        inside = logical_and(greater_equal(flat, 0), less(flat, size))
        return unsorted_segment_sum(array_ops.boolean_mask(counted, inside), array_ops.boolean_mask(flat, inside),
                                    size)


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin of each value among nbins equal bins over value_range, values outside in the
    end bins: TensorFlow's floor(nbins * (v - lo) / (hi - lo)), clipped."""
    with name_scope(name or "histogram_fixed_width_bins"):
        values = convert_to_tensor(values, name="values")
        value_range = convert_to_tensor(value_range, name="value_range", dtype=values.dtype)
        nbins_float = cast(convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins"), values.dtype)
        scaled = (values - value_range[0]) / (value_range[1] - value_range[0])
        index = clip_by_value(floor(nbins_float * scaled), 0, nbins_float - 1)
        return cast(index, dtype)


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """Counts of values in nbins equal bins over value_range, values outside in the end bins.
    As TensorFlow's kernel: bin = min((max(v, lo) - lo) / step, nbins - 1) in float64, step =
    (hi - lo) / nbins."""
    with name_scope(name or "histogram_fixed_width"):
        values = convert_to_tensor(values, name="values")
        value_range = convert_to_tensor(value_range, name="value_range", dtype=values.dtype)
        nbins_t = convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        lo, hi = value_range[0], value_range[1]
        offset = cast(maximum(values, lo) - lo, dtypes.float64)
        step = cast(hi - lo, dtypes.float64) / cast(nbins_t, dtypes.float64)
        bins = cast(minimum(offset / step, cast(nbins_t - 1, dtypes.float64)), dtypes.int32)
        bins = array_ops.reshape(bins, [-1])
        return unsorted_segment_sum(array_ops.ones_like(bins, dtype=dtype), bins, nbins_t)
