"""Array functions TensorFlow 1 writes in Python over other ops, written the same way here:
tf.meshgrid, tf.tensordot, tf.where_v2, tf.norm."""
import builtins

import numpy as np

from tensorweave.array_ops import ones, reshape, size, stack, transpose
from tensorweave.framework import Tensor, _op_output, convert_to_tensor
from tensorweave.math_ops import _binary_inputs, abs, matmul, multiply, reduce_max, reduce_sum, sqrt, where  # noqa: A004


def meshgrid(*args, **kwargs):
    """N-D coordinate arrays from N vectors; indexing 'xy' (Cartesian, the default: the first
    two output dims swapped) or 'ij' (matrix)."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments: {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    xs = [convert_to_tensor(x) for x in args]
    ndim = len(xs)
    ones_shape = [1] * ndim
    outputs = [reshape(x, ones_shape[:i] + [-1] + ones_shape[i + 1:]) for i, x in enumerate(xs)]
    sizes = [size(x) for x in xs]
    if indexing == "xy" and ndim > 1:
        outputs[0] = reshape(outputs[0], [1, -1] + [1] * (ndim - 2))
        outputs[1] = reshape(outputs[1], [-1, 1] + [1] * (ndim - 2))
        sizes[0], sizes[1] = sizes[1], sizes[0]
    # Broadcast each against ones of the full grid's shape.
    grid = ones(stack(sizes), dtype=xs[0].dtype) if ndim else None
    return [multiply(x, grid) for x in outputs]


def _static_dims(t, what):
    dims = t.shape.as_list() if t.shape.ndims is not None else None
    if dims is None or any(d is None for d in dims):
        raise ValueError(f"tensordot here needs the static shape of {what}, got {t.shape}")
    return dims


def tensordot(a, b, axes, name=None):
    """Sums the products of a's and b's elements over the axes given: an int N (a's last N
    with b's first N) or a pair of axis lists. Needs static shapes."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    da, db = _static_dims(a, "a"), _static_dims(b, "b")
    if isinstance(axes, (int, np.integer)):
        if axes < 0 or axes > min(len(da), len(db)):
            raise ValueError(f"'axes' must be at most the rank of both a and b, got {axes}")
        axes_a, axes_b = list(builtins.range(len(da) - axes, len(da))), list(builtins.range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
        if len(axes_a) != len(axes_b):
            raise ValueError(f"Different number of contraction axes 'a' and 'b', {len(axes_a)} != {len(axes_b)}.")
    axes_a = [x % len(da) for x in axes_a]
    axes_b = [x % len(db) for x in axes_b]
    for i, j in zip(axes_a, axes_b):
        if da[i] != db[j]:
            raise ValueError(f"Dimension {da[i]} of a's axis {i} does not match {db[j]} of b's axis {j}")
    free_a = [i for i in builtins.range(len(da)) if i not in axes_a]
    free_b = [i for i in builtins.range(len(db)) if i not in axes_b]
    contracted = int(np.prod([da[i] for i in axes_a]))
    a2 = reshape(transpose(a, free_a + axes_a), [int(np.prod([da[i] for i in free_a])), contracted])
    b2 = reshape(transpose(b, axes_b + free_b), [contracted, int(np.prod([db[i] for i in free_b]))])
    return reshape(matmul(a2, b2), [da[i] for i in free_a] + [db[i] for i in free_b], name=name or "Tensordot")


def where_v2(condition, x=None, y=None, name=None):
    """tf.where of TensorFlow 2: x and y broadcast against condition (SelectV2)."""
    if x is None and y is None:
        return where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    # A Python number takes the dtype of the other side (a tensor or a NumPy array).
    if not hasattr(x, "dtype") and hasattr(y, "dtype"):
        y = convert_to_tensor(y)
        x = convert_to_tensor(x, dtype=y.dtype)
    elif hasattr(x, "dtype") and not isinstance(x, Tensor):
        x = convert_to_tensor(x)
    x, y = _binary_inputs(x, y)
    return _op_output("SelectV2", [convert_to_tensor(condition), x, y], name=name or "SelectV2")


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """Vector norms (ord 'euclidean'/2, 1, inf) over `axis` (all elements when None) and the
    Frobenius norm ('fro' or 'euclidean') of matrices over a pair of axes."""
    x = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    pair = isinstance(axis, (list, tuple)) and len(axis) == 2
    if ord == "fro" and not (pair or axis is None):
        raise ValueError(f"'fro' is a matrix norm: axis must be a pair, got {axis}")
    if ord in ("euclidean", "fro") or (ord == 2 and not pair):
        return sqrt(reduce_sum(multiply(x, x), axis=axis, keepdims=keep), name=name or "norm")
    if pair:
        raise ValueError(f"matrix norm ord {ord!r} is not supported here: use 'fro' or 'euclidean'")
    if ord == 1:
        return reduce_sum(abs(x), axis=axis, keepdims=keep, name=name or "norm")
    if ord == np.inf:
        return reduce_max(abs(x), axis=axis, keepdims=keep, name=name or "norm")
    raise ValueError(f"'ord' must be a supported vector norm ('euclidean', 1, 2, np.inf), got {ord!r}")


def batch_gather(params, indices, name=None):
    """tf.batch_gather (TensorFlow 1): for each batch position of indices [b1..bk, n], the
    rows of params [b1..bk, m, ...] it names. Built as TensorFlow 1 does: the batch offsets
    added to the indices, then one gather from params with its batch dims flattened."""
    from tensorweave import array_ops, framework, math_ops
    with framework.name_scope(name or "batch_gather"):
        params, indices = convert_to_tensor(params, name="params"), convert_to_tensor(indices, name="indices")
        ndims = indices.shape.ndims
        if ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown rank.")
        params_shape = array_ops.cast(array_ops.shape(params), indices.dtype)
        batch_indices = indices
        accum = array_ops.ones([], dtype=indices.dtype)
        for dim in builtins.range(ndims - 1, 0, -1):
            accum = accum * params_shape[dim]
            positions = array_ops.range(params_shape[dim - 1]) * accum
            dims = [1] * (dim - 1) + [-1] + [1] * (ndims - dim)
            batch_indices = batch_indices + reshape(positions, dims)
        outer = array_ops.shape(params)[ndims:]
        flat_params = reshape(params, array_ops.concat([[-1], outer], 0))
        flat = array_ops.gather(flat_params, reshape(batch_indices, [-1]))
        return reshape(flat, array_ops.concat([array_ops.shape(indices), outer], 0))


def parallel_stack(values, name="parallel_stack"):
    """The values stacked along a new first dim; as TensorFlow, their shapes must be known."""
    values = [convert_to_tensor(v) for v in values]
    for v in values:
        if not v.shape.is_fully_defined():
            raise ValueError("parallel_stack needs fully defined shapes, got %s" % v.shape)
    return stack(values, axis=0, name=name)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TensorFlow's argument name
    """Each element (slice along axis; of the flattened input when axis is None) repeated
    `repeats` times: a scalar for all, or one count per element."""
    from tensorweave import array_ops, dtypes, framework
    from tensorweave.array_diag_ops import sequence_mask
    with framework.name_scope(name or "Repeat"):
        x = convert_to_tensor(input, name="input")
        repeats = convert_to_tensor(repeats, name="repeats", dtype=dtypes.int32)
        if axis is None:
            x, axis = reshape(x, [-1]), 0
        rank = x.shape.ndims
        if rank is None:
            raise ValueError("repeat needs an input of known rank")
        axis = axis + rank if axis < 0 else axis
        if repeats.shape.ndims not in (0, 1):
            raise ValueError("repeats must be a scalar or a vector, got shape %s" % repeats.shape)
        n = array_ops.shape(x)[axis]
        counts = repeats if repeats.shape.ndims == 1 else array_ops.fill(array_ops.reshape(n, [1]), repeats)
        # Element i's index once per repeat, in order: the true cells of a [n, max] mask, row by row.
        mask = sequence_mask(counts, maxlen=reduce_max(array_ops.concat([counts, [0]], 0)))
        positions = array_ops.tile(array_ops.expand_dims(array_ops.range(n), 1),
                                   array_ops.stack([1, array_ops.shape(mask)[1]]))
        picked = array_ops.boolean_mask(reshape(positions, [-1]), reshape(mask, [-1]))
        return array_ops.gather(x, picked, axis=axis)
