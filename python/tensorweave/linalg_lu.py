"""tf.linalg.lu (op Lu) and the composites TensorFlow builds on it in Python (linalg_impl.py):
lu_solve, lu_matrix_inverse and lu_reconstruct, with TensorFlow's argument checks: a rank or
square-ness known while building fails with ValueError, one known only when running becomes
an assertion with validate_args. None of them checks that the matrix is invertible."""
import numpy as np

from tensorweave import array_ops, check_ops, dtypes, math_ops
from tensorweave.array_diag_ops import matrix_diag, matrix_set_diag
from tensorweave.array_reorder_ops import invert_permutation, matrix_band_part
from tensorweave.framework import _op, control_dependencies, convert_to_tensor, name_scope
from tensorweave.linalg_ops import matrix_triangular_solve
from tensorweave.partition_ops import gather_nd, scatter_nd
from tensorweave.shape_n_ops import broadcast_dynamic_shape, ensure_shape


def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002 - TensorFlow's argument name
    """(lu, p): P input = L U with L unit lower (below lu's diagonal), U upper (on and above
    it) and input's row p[i] as P input's row i; partial pivoting as TensorFlow's."""
    op = _op("Lu", [convert_to_tensor(input)], {"output_idx_type": dtypes.as_dtype(output_idx_type)}, name or "Lu")
    return op.outputs[0], op.outputs[1]


def _hinted(value, hint, name):
    """convert_to_tensor with TensorFlow's dtype_hint: tensors and NumPy arrays keep their
    dtype, Python values take the hint."""
    if isinstance(value, np.ndarray) or hasattr(value, "dtype"):
        return convert_to_tensor(value, name=name)
    return convert_to_tensor(np.asarray(value, dtype=dtypes.as_dtype(hint).as_numpy_dtype), name=name)


def _convert(lower_upper, perm):
    return _hinted(lower_upper, dtypes.float32, "lower_upper"), _hinted(perm, dtypes.int32, "perm")


def lu_reconstruct_assertions(lower_upper, perm, validate_args):
    """TensorFlow's checks of (lower_upper, perm): static ones raise, dynamic ones are
    returned as assertions when validate_args."""
    assertions = []
    lu_rank, perm_rank = lower_upper.shape.ndims, perm.shape.ndims
    message = "Input `lower_upper` must have at least 2 dimensions."
    if lu_rank is not None and lu_rank < 2:
        raise ValueError(message)
    elif validate_args:
        # TensorFlow's rank assertions append ".  " to the message.
        assertions.append(check_ops.assert_greater_equal(array_ops.rank(lower_upper), 2, message=message + ".  "))
    message = "`rank(lower_upper)` must equal `rank(perm) + 1`"
    if lu_rank is not None and perm_rank is not None:
        if lu_rank != perm_rank + 1:
            raise ValueError(message)
    elif validate_args:
        assertions.append(check_ops.assert_equal(array_ops.rank(lower_upper), array_ops.rank(perm) + 1,
                                                 message=message + ".  "))
    message = "`lower_upper` must be square."
    dims = lower_upper.shape.as_list() if lu_rank is not None else None
    if dims is not None and all(d is not None for d in dims[:-2]):
        # As TensorFlow: compared when the batch dims are known (an unknown matrix dim compares unequal).
        if dims[-2] != dims[-1] or dims[-1] is None:
            raise ValueError(message)
    elif validate_args:
        shape = array_ops.shape(lower_upper)
        assertions.append(check_ops.assert_equal(shape[-2], shape[-1], message=message))
    return assertions


def _lu_solve_assertions(lower_upper, perm, rhs, validate_args):
    assertions = lu_reconstruct_assertions(lower_upper, perm, validate_args)
    message = "Input `rhs` must have at least 2 dimensions."
    if rhs.shape.ndims is not None:
        if rhs.shape.ndims < 2:
            raise ValueError(message)
    elif validate_args:
        assertions.append(check_ops.assert_greater_equal(array_ops.rank(rhs), 2, message=message + ".  "))
    message = "`lower_upper.shape[-1]` must equal `rhs.shape[-1]`."
    n = lower_upper.shape.as_list()[-1] if lower_upper.shape.ndims else None
    d = rhs.shape.as_list()[-2] if rhs.shape.ndims else None
    if n is not None and d is not None:
        if n != d:
            raise ValueError(message)
    elif validate_args:
        assertions.append(check_ops.assert_equal(array_ops.shape(lower_upper)[-1], array_ops.shape(rhs)[-2],
                                                 message=message))
    return assertions


def _checked(assertions, *tensors):
    if not assertions:
        return tensors
    with control_dependencies(assertions):
        return tuple(array_ops.identity(t) for t in tensors)


def _unit_lower(lower_upper):
    return matrix_set_diag(matrix_band_part(lower_upper, -1, 0),
                           array_ops.ones(array_ops.shape(lower_upper)[:-1], dtype=lower_upper.dtype))


def _batch_row_indices(perm, batch_size, d):
    """[batch, d, 2] index pairs (b, perm[b, i]) for gather_nd / scatter_nd."""
    batch = array_ops.broadcast_to(array_ops.expand_dims(array_ops.range(batch_size), -1), array_ops.stack([batch_size, d]))
    return array_ops.stack([batch, array_ops.cast(perm, dtypes.int32)], axis=-1)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """X with A X = rhs, A given by lu(A); perm and rhs broadcast over the batch dims."""
    with name_scope(name or "lu_solve"):
        lower_upper, perm = _convert(lower_upper, perm)
        rhs = _hinted(rhs, lower_upper.dtype, "rhs")
        lower_upper, perm, rhs = _checked(_lu_solve_assertions(lower_upper, perm, rhs, validate_args),
                                          lower_upper, perm, rhs)
        if rhs.shape.ndims == 2 and perm.shape.ndims == 1:
            permuted_rhs = array_ops.gather(rhs, perm, axis=-2)
        else:
            rhs_shape = array_ops.shape(rhs)
            batch_shape = broadcast_dynamic_shape(rhs_shape[:-2], array_ops.shape(perm)[:-1])
            d, m = rhs_shape[-2], rhs_shape[-1]
            full_shape = array_ops.concat([batch_shape, array_ops.stack([d, m])], axis=0)
            flat_rhs = array_ops.reshape(array_ops.broadcast_to(rhs, full_shape), array_ops.stack([-1, d, m]))
            flat_perm = array_ops.reshape(array_ops.broadcast_to(perm, full_shape[:-1]), array_ops.stack([-1, d]))
            indices = _batch_row_indices(flat_perm, math_ops.reduce_prod(batch_shape), d)
            permuted_rhs = array_ops.reshape(gather_nd(flat_rhs, indices), full_shape)
            # Our MatrixTriangularSolve does not broadcast batch dims (TensorFlow's does): the
            # factors are broadcast here, which gives the same values.
            lower_upper = array_ops.broadcast_to(
                lower_upper, array_ops.concat([batch_shape, array_ops.shape(lower_upper)[-2:]], axis=0))
        lower = _unit_lower(lower_upper)
        return matrix_triangular_solve(lower_upper, matrix_triangular_solve(lower, permuted_rhs), lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of each matrix A given by lu(A)."""
    with name_scope(name or "lu_matrix_inverse"):
        lower_upper, perm = _convert(lower_upper, perm)
        lower_upper, perm = _checked(lu_reconstruct_assertions(lower_upper, perm, validate_args), lower_upper, perm)
        # TensorFlow's eye(n, batch_shape=shape[:-2]): ours takes static dims only.
        identity = matrix_diag(array_ops.ones(array_ops.shape(lower_upper)[:-1], dtype=lower_upper.dtype))
        return lu_solve(lower_upper, perm, rhs=identity, validate_args=False)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrices A that lu(A) factored: P^T L U."""
    with name_scope(name or "lu_reconstruct"):
        lower_upper, perm = _convert(lower_upper, perm)
        lower_upper, perm = _checked(lu_reconstruct_assertions(lower_upper, perm, validate_args), lower_upper, perm)
        shape = array_ops.shape(lower_upper)
        x = math_ops.matmul(_unit_lower(lower_upper), matrix_band_part(lower_upper, 0, -1))
        if lower_upper.shape.ndims != 2:
            # Row i of L U goes to row perm[i]: a scatter, where TensorFlow gathers through the
            # inverted permutation of each matrix (the same values).
            batch_size, d = math_ops.reduce_prod(shape[:-2]), shape[-1]
            x = array_ops.reshape(x, array_ops.stack([batch_size, d, d]))
            indices = _batch_row_indices(array_ops.reshape(perm, array_ops.stack([batch_size, d])), batch_size, d)
            x = array_ops.reshape(scatter_nd(indices, x, array_ops.shape(x)), shape)
            if lower_upper.shape.ndims is not None:  # TensorFlow's set_shape: the static dims kept
                x = ensure_shape(x, lower_upper.shape)
        else:
            x = array_ops.gather(x, invert_permutation(perm))
        return x

