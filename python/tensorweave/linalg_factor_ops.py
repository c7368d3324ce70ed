"""Matrix factorizations with TensorFlow 1's names and arguments: tf.qr, tf.svd,
tf.self_adjoint_eig and tf.self_adjoint_eigvals (tf.linalg.qr, svd, eigh, eigvalsh). Each
works on batches (the matrices are the last two dims) and has TensorFlow's gradient."""
from tensorweave.framework import _op, convert_to_tensor


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TensorFlow's argument name
    """(q, r) with input = q r, q's columns orthonormal, r upper triangular."""
    op = _op("Qr", [convert_to_tensor(input)], {"full_matrices": bool(full_matrices)}, name or "Qr")
    return op.outputs[0], op.outputs[1]


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """s (descending), or (s, u, v) with tensor = u diag(s) v^T when compute_uv."""
    op = _op("Svd", [convert_to_tensor(tensor)], {"compute_uv": bool(compute_uv), "full_matrices": bool(full_matrices)},
             name or "Svd")
    return (op.outputs[0], op.outputs[1], op.outputs[2]) if compute_uv else op.outputs[0]


def self_adjoint_eig(tensor, name=None):
    """(e, v): the eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix,
    reading its lower triangle."""
    op = _op("SelfAdjointEigV2", [convert_to_tensor(tensor)], {"compute_v": True}, name or "SelfAdjointEigV2")
    return op.outputs[0], op.outputs[1]


def self_adjoint_eigvals(tensor, name=None):
    """The eigenvalues (ascending) of each symmetric matrix."""
    return _op("SelfAdjointEigV2", [convert_to_tensor(tensor)], {"compute_v": False},
               name or "SelfAdjointEigV2").outputs[0]
