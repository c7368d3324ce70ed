"""tf.matrix_solve_ls / tf.linalg.lstsq as TensorFlow's Python builds them (linalg_ops.py):
with fast=True the regularized normal equations through Cholesky, (A^T A + l2 I)^-1 A^T b
when rows >= cols, else A^T (A A^T + l2 I)^-1 b (TensorFlow's MatrixSolveLs kernel, which it
calls for large batches, solves the same equations). With fast=False TensorFlow's kernel
returns the minimum-norm least-squares solution through a complete orthogonal decomposition,
ignoring l2_regularizer; here it is pinv(A) b (the same solution; for rank-deficient A the
cut-off is pinv's rcond where Eigen's decomposition uses its own threshold). Real dtypes."""
from tensorweave import array_ops, math_ops
from tensorweave.array_diag_ops import matrix_diag_part, matrix_set_diag
from tensorweave.control_flow_ops import cond
from tensorweave.framework import Tensor, _op_output, convert_to_tensor, name_scope
from tensorweave.linalg_ops import cholesky, cholesky_solve
from tensorweave.linalg_pinv import pinv


def _matmul(a, b, transpose_a=False, transpose_b=False):
    """BatchMatMulV2 whenever a rank is unknown, as TensorFlow's matmul (ours picks MatMul)."""
    if a.shape.ndims is None or b.shape.ndims is None:
        return _op_output("BatchMatMulV2", [a, b], {"adj_x": transpose_a, "adj_y": transpose_b}, "MatMul")
    return math_ops.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)


def _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind):
    """cholesky(A^T A + l2 I) (first kind) or cholesky(A A^T + l2 I)."""
    gramian = _matmul(matrix, matrix, transpose_a=first_kind, transpose_b=not first_kind)
    if isinstance(l2_regularizer, Tensor) or l2_regularizer != 0:
        l2 = convert_to_tensor(l2_regularizer, dtype=matrix.dtype) if isinstance(l2_regularizer, Tensor) \
            else array_ops.constant(l2_regularizer, dtype=matrix.dtype)
        # gramian + l2 * I, as TensorFlow's (adding l2 to the diagonal gives the same values).
        gramian = matrix_set_diag(gramian, matrix_diag_part(gramian) + l2)
    return cholesky(gramian)


def _overdetermined(matrix, rhs, l2_regularizer):
    chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=True)
    return cholesky_solve(chol, _matmul(matrix, rhs, transpose_a=True))


def _underdetermined(matrix, rhs, l2_regularizer):
    chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=False)
    return _matmul(matrix, cholesky_solve(chol, rhs), transpose_a=True)


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The X minimizing ||A X - rhs||^2 + l2_regularizer ||X||^2 for each matrix A of `matrix`
    ([..., M, N]) and rhs [..., M, K]; X is [..., N, K]."""
    matrix = convert_to_tensor(matrix, name="matrix")
    rhs = convert_to_tensor(rhs, name="rhs")
    with name_scope(name or "matrix_solve_ls"):
        if not fast:
            return math_ops.matmul(pinv(matrix), rhs)
        dims = matrix.shape.as_list()[-2:] if matrix.shape.ndims is not None else [None, None]
        if dims[0] is not None and dims[1] is not None:
            solve = _overdetermined if dims[0] >= dims[1] else _underdetermined
            return solve(matrix, rhs, l2_regularizer)
        shape = array_ops.shape(matrix)
        return cond(shape[-2] >= shape[-1], lambda: _overdetermined(matrix, rhs, l2_regularizer),
                    lambda: _underdetermined(matrix, rhs, l2_regularizer))
