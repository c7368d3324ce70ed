"""tf.linalg.lu (op Lu), lu_solve, lu_matrix_inverse and lu_reconstruct against TensorFlow: the
packed factors and pivots (the same PartialPivLU on both sides), the composites (batched,
broadcast) and their gradients, static shapes, build-time ValueErrors and run-time error
texts, validate_args included. TensorFlow has no gradient for Lu: ours is checked by central
differences in float64 (tf_side/linalg_lu_cases.py builds the same graphs on both sides)."""
import sys

import numpy as np
import pytest

import tensorweave as tf
from numeric_gradients import central_differences
from tf_peer import TF_SIDE_DIR, assert_close_to_tensorflow, shared_cases_fixtures, shared_cases_names

sys.path.insert(0, TF_SIDE_DIR)
import linalg_lu_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()


theirs, ours = shared_cases_fixtures("test_linalg_lu", cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    assert_close_to_tensorflow(ours[name], theirs[0][name], 1e-10, 1e-4)


def test_factors_reconstruct_the_input(ours):
    for name, _ in cases.SHAPES:
        x = ARRAYS[f"{name}_float64"]
        np.testing.assert_allclose(ours[f"recon_{name}_float64"], x, atol=1e-13)
        np.testing.assert_allclose(ours[f"inv_{name}_float64"], np.linalg.inv(x), atol=1e-10)


def test_static_shapes_match_tensorflow(theirs):
    with tf.Graph().as_default():
        assert cases.static_shapes(tf) == theirs[1]["shapes"]


def test_build_time_errors_match_tensorflow(theirs):
    expected = theirs[1]["static_errors"]
    got = cases.static_errors(tf)
    assert all(expected.values()), expected
    for name, text in expected.items():
        # Shape-function texts end with TensorFlow's node description; ours names the op too.
        assert got[name] is not None and text.split(" for '")[0] in got[name], (name, text, got[name])


@pytest.mark.parametrize("name", sorted(cases.ERRORS))
def test_run_time_errors_match_tensorflow(theirs, name):
    expected = theirs[1]["errors"][name]
    assert expected, f"TensorFlow accepted {name}"
    with tf.Graph().as_default():
        t = cases.error_graph(tf, name)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(t)
    assert expected.rstrip() in e.value.message, (expected, e.value.message)


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)])
def test_lu_gradient_by_central_differences(shape):
    rng = np.random.default_rng(5)
    x0, w = rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape)
    w_inv, rhs = rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape[:-1] + (2,))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, shape)
        lu, p = tf.linalg.lu(x)
        # The packed factors, and through them the inverse and a solve (pivots held as they are).
        losses = [tf.reduce_sum(lu * w), tf.reduce_sum(tf.linalg.lu_matrix_inverse(lu, p) * w_inv),
                  tf.reduce_sum(tf.linalg.lu_solve(lu, p, rhs) ** 2)]
        grads = [tf.gradients(loss, x)[0] for loss in losses]
        with tf.Session() as sess:
            got = sess.run(grads, {x: x0})
            for loss, g in zip(losses, got):
                expected = central_differences(lambda v, loss=loss: sess.run(loss, {x: v}), x0)
                np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-7)


def test_index_dtype_and_empty_matrices():
    with tf.Graph().as_default():
        lu, p = tf.linalg.lu(tf.constant(np.zeros((2, 0, 0))), output_idx_type=tf.int64)
        assert p.dtype == tf.int64 and lu.dtype == tf.float64
        with tf.Session() as sess:
            lu_v, p_v = sess.run([lu, p])
        assert lu_v.shape == (2, 0, 0) and p_v.shape == (2, 0)
