"""Matrix functions with TensorFlow 1's names and arguments: tf.matrix_inverse,
tf.matrix_determinant, tf.log_matrix_determinant, tf.cholesky, tf.matrix_solve,
tf.matrix_triangular_solve (ops), and tf.cholesky_solve, tf.trace, tf.eye,
tf.matrix_transpose (composites, as TensorFlow writes them in Python). Every function works
on batches: the matrices are the last two dims."""
import builtins

from tensorweave import dtypes, gen_ops
from tensorweave.array_ops import ones, transpose
from tensorweave.array_reorder_ops import matrix_band_part
from tensorweave.framework import _op, _op_output, convert_to_tensor
from tensorweave.math_ops import reduce_sum


def matrix_inverse(input, adjoint=False, name=None):  # noqa: A002 - TensorFlow's argument name
    return _op_output("MatrixInverse", [convert_to_tensor(input)], {"adjoint": bool(adjoint)}, name or "MatrixInverse")


matrix_determinant = gen_ops.matrix_determinant  # generated from the registry (tools/op_gen)


def log_matrix_determinant(input, name=None):  # noqa: A002
    """(sign, log_abs_determinant): the determinant is sign * exp(log_abs_determinant)."""
    op = _op("LogMatrixDeterminant", [convert_to_tensor(input)], name=name or "LogMatrixDeterminant")
    return op.outputs[0], op.outputs[1]


cholesky = gen_ops.cholesky  # generated from the registry (tools/op_gen)
# The principal square root of each matrix (tf.linalg.sqrtm); NaN where no real one exists.
matrix_square_root = gen_ops.matrix_square_root  # generated from the registry (tools/op_gen)


def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """X with matrix X = rhs (matrix^T X = rhs when adjoint)."""
    return _op_output("MatrixSolve", [convert_to_tensor(matrix), convert_to_tensor(rhs)], {"adjoint": bool(adjoint)},
                      name or "MatrixSolve")


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with matrix X = rhs, reading only matrix's lower (or upper) triangle."""
    return _op_output("MatrixTriangularSolve", [convert_to_tensor(matrix), convert_to_tensor(rhs)],
                      {"lower": bool(lower), "adjoint": bool(adjoint)}, name or "MatrixTriangularSolve")


def cholesky_solve(chol, rhs, name=None):
    """X with A X = rhs given chol = cholesky(A): two triangular solves, L Y = rhs, L^T X = Y."""
    y = matrix_triangular_solve(chol, rhs, lower=True, adjoint=False)
    return matrix_triangular_solve(chol, y, lower=True, adjoint=True, name=name or "cholesky_solve")


def trace(x, name=None):
    """The sum of each matrix's diagonal."""
    return reduce_sum(matrix_band_part(x, 0, 0), axis=[-2, -1], name=name or "trace")


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """Identity matrices [*batch_shape, num_rows, num_columns] (static sizes)."""
    num_columns = num_rows if num_columns is None else num_columns
    shape = list(batch_shape or []) + [num_rows, num_columns]
    return matrix_band_part(ones(shape, dtype=dtype), 0, 0, name=name or "eye")


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Each matrix transposed (the last two dims swapped), conjugated too when `conjugate`
    (a no-op on real values); needs a known rank."""
    a = convert_to_tensor(a)
    if conjugate:
        from tensorweave.complex_ops import conj
        a = conj(a)
    rank = a.shape.ndims
    if rank is None or rank < 2:
        raise ValueError(f"matrix_transpose needs a tensor of known rank >= 2, got shape {a.shape}")
    perm = list(builtins.range(rank - 2)) + [rank - 1, rank - 2]
    return transpose(a, perm, name=name)
