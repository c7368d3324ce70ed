"""tf.linalg: TensorFlow 1's linear-algebra namespace, aliasing functions defined elsewhere
under the names tf.linalg gives them."""
from tensorweave.array_reorder_ops import matrix_band_part as band_part  # noqa: F401
from tensorweave.linalg_ops import cholesky, cholesky_solve, eye, matrix_transpose, trace  # noqa: F401
from tensorweave.linalg_ops import log_matrix_determinant as slogdet  # noqa: F401
from tensorweave.linalg_ops import matrix_determinant as det  # noqa: F401
from tensorweave.linalg_ops import matrix_inverse as inv  # noqa: F401
from tensorweave.linalg_ops import matrix_square_root as sqrtm  # noqa: F401
from tensorweave.linalg_ops import matrix_solve as solve  # noqa: F401
from tensorweave.linalg_ops import matrix_transpose as transpose  # noqa: F401
from tensorweave.linalg_ops import matrix_triangular_solve as triangular_solve  # noqa: F401
from tensorweave.math_ops import matmul  # noqa: F401
from tensorweave.array_diag_ops import diag as tensor_diag  # noqa: F401,E402
from tensorweave.array_diag_ops import diag_part as tensor_diag_part  # noqa: F401,E402
from tensorweave.array_diag_ops import matrix_diag as diag  # noqa: F401,E402
from tensorweave.array_diag_ops import matrix_diag_part as diag_part  # noqa: F401,E402
from tensorweave.array_diag_ops import matrix_set_diag as set_diag  # noqa: F401,E402
from tensorweave.array_composites import norm, tensordot  # noqa: F401,E402
from tensorweave.linalg_factor_ops import qr, svd  # noqa: F401,E402
from tensorweave.linalg_factor_ops import self_adjoint_eig as eigh  # noqa: F401,E402
from tensorweave.linalg_factor_ops import self_adjoint_eigvals as eigvalsh  # noqa: F401,E402
from tensorweave.einsum_ops import einsum  # noqa: F401,E402
from tensorweave.linalg_pinv import pinv  # noqa: F401,E402
from tensorweave.clip_ops import global_norm  # noqa: F401,E402
from tensorweave.nn import l2_normalize  # noqa: F401,E402
from tensorweave.linalg_lu import lu, lu_matrix_inverse, lu_reconstruct, lu_solve  # noqa: F401,E402
from tensorweave.linalg_lstsq import matrix_solve_ls as lstsq  # noqa: F401,E402


def adjoint(matrix, name=None):
    """The conjugate transpose of each matrix."""
    from tensorweave.linalg_ops import matrix_transpose
    return matrix_transpose(matrix, name=name or "adjoint", conjugate=True)


from tensorweave.math_composites import cross  # noqa: F401,E402
