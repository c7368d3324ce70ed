"""tf.linalg.pinv (TensorFlow's composite over Svd) against TensorFlow: values of square, tall,
wide, batched and rank-deficient matrices in both float dtypes, an explicit rcond, the
gradients of full-rank cases (also against finite differences), static shapes, and the
Moore-Penrose conditions. The graphs are built by the same code on both sides
(tf_side/pinv_cases.py)."""
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, shared_cases_names, shared_cases_ours, shared_cases_outputs

sys.path.insert(0, TF_SIDE_DIR)
import pinv_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()


@pytest.fixture(scope="module")
def theirs(tmp_path_factory):
    return shared_cases_outputs("test_linalg_pinv", cases, tmp_path_factory.mktemp("cases"))


@pytest.fixture(scope="module")
def ours():
    return shared_cases_ours(cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    expected, got = theirs[0][name], ours[name]
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, got.dtype, expected.shape)
    tol = 1e-9 if got.dtype == np.float64 else 2e-4
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def test_static_shapes_match_tensorflow(theirs):
    with tf.Graph().as_default():
        assert cases.static_shapes(tf) == theirs[1]["shapes"]


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_moore_penrose_conditions(ours, name):
    a, p = ARRAYS[name], ours[f"{name}_float64"]
    np.testing.assert_allclose(a @ p @ a, a, atol=1e-10)
    np.testing.assert_allclose(p @ a @ p, p, atol=1e-10)
    np.testing.assert_allclose(np.linalg.pinv(a), p, atol=1e-10)


def test_gradient_matches_finite_differences():
    a0 = ARRAYS["tall"]
    w = np.resize(np.linspace(-1.0, 2.0, 7), (3, 5))
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float64, a0.shape)
        loss = tf.reduce_sum(tf.constant(w) * tf.linalg.pinv(a))
        grad = tf.gradients(loss, [a])[0]
        with tf.Session() as sess:
            g = sess.run(grad, {a: a0})
            eps = 1e-6
            numeric = np.zeros_like(a0)
            for idx in np.ndindex(*a0.shape):
                d = np.zeros_like(a0)
                d[idx] = eps
                numeric[idx] = (sess.run(loss, {a: a0 + d}) - sess.run(loss, {a: a0 - d})) / (2 * eps)
    np.testing.assert_allclose(g, numeric, rtol=1e-5, atol=1e-6)


def test_bad_inputs_as_tensorflow():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Input `a` must have at least 2 dimensions \(saw: 1\)"):
            tf.linalg.pinv(tf.constant([1.0, 2.0]))
        with pytest.raises(TypeError, match=r"Input `a` must have `float`-like `dtype` \(saw int32\)"):
            tf.linalg.pinv(tf.constant([[1, 2]]))
