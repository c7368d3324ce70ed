"""tf.qr, tf.svd, tf.self_adjoint_eig / eigvals (ops Qr, Svd, SelfAdjointEigV2) against
TensorFlow: factors in sign-invariant form (QR with R's diagonal made positive, squared
singular/eigen vectors, reconstructions), singular and eigen values as they are, gradients of
sign-invariant losses, static shapes and error texts. The graphs are built by the same code
on both sides (tf_side/linalg_factor_cases.py)."""
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, shared_cases_names, shared_cases_ours, shared_cases_outputs

sys.path.insert(0, TF_SIDE_DIR)
import linalg_factor_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()


@pytest.fixture(scope="module")
def theirs(tmp_path_factory):
    return shared_cases_outputs("test_linalg_factor", cases, tmp_path_factory.mktemp("cases"))


@pytest.fixture(scope="module")
def ours():
    return shared_cases_ours(cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    expected, got = theirs[0][name], ours[name]
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, got.dtype, expected.shape)
    # float32 gradients divide by eigen/singular gaps: a few hundred ulps of the largest element.
    tol = 1e-9 if got.dtype == np.float64 else 2e-4
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * max(1.0, float(np.abs(expected).max())))


def test_reconstructions_and_orthogonality(ours):
    for name, shape in cases.SHAPES:
        x = ARRAYS[f"{name}_float64"]
        np.testing.assert_allclose(ours[f"qr_{name}_float64_fullFalse_recon"], x, atol=1e-12)
        np.testing.assert_allclose(ours[f"svd_{name}_float64_recon"], x, atol=1e-12)
        # Each column of U and V has unit norm; the values are NumPy's.
        np.testing.assert_allclose(ours[f"svd_{name}_float64_uu"].sum(axis=-2), 1.0, atol=1e-12)
        np.testing.assert_allclose(ours[f"svd_{name}_float64_s"], np.linalg.svd(x, compute_uv=False), atol=1e-12)
        np.testing.assert_allclose(ours[f"eig_{name}_float64_e"], np.linalg.eigvalsh(ARRAYS[f"sym_{name}_float64"]),
                                   atol=1e-12)


def test_static_shapes_match_tensorflow(theirs):
    with tf.Graph().as_default():
        assert cases.static_shapes(tf) == theirs[1]["shapes"]


@pytest.mark.parametrize("name", sorted(cases.ERRORS))
def test_errors_match_tensorflow(theirs, name):
    expected = theirs[1]["errors"][name]
    assert expected, f"TensorFlow accepted {name}"
    with tf.Graph().as_default():
        t = cases.error_graph(tf, name)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(t)
    assert expected in e.value.message, (expected, e.value.message)


def test_unsupported_gradients_name_the_op():
    with tf.Graph().as_default():
        x = tf.constant(np.ones((4, 3)))
        q, r = tf.qr(x, full_matrices=True)
        with pytest.raises(Exception, match="Qr's gradient is not implemented"):
            tf.gradients(tf.reduce_sum(q), x)
        a = tf.constant(np.ones((5, 3)))
        s, u, v = tf.svd(a, full_matrices=True)
        with pytest.raises(Exception, match="Svd's gradient is not implemented for full_matrices=True"):
            tf.gradients(tf.reduce_sum(u), a)


def test_eigenvalues_only_and_empty_matrices():
    with tf.Graph().as_default(), tf.Session() as sess:
        e, v = tf.self_adjoint_eig(np.zeros((2, 0, 0)))
        s, u, vv = tf.svd(np.zeros((3, 0)), full_matrices=True)
        got = sess.run([e, v, s, u, vv, tf.linalg.eigvalsh([[2.0, 1.0], [1.0, 2.0]])])
    assert got[0].shape == (2, 0) and got[1].shape == (2, 0, 0) and got[2].shape == (0,)
    np.testing.assert_array_equal(got[3], np.eye(3))
    assert got[4].shape == (0, 0)
    np.testing.assert_allclose(got[5], [1.0, 3.0])
