"""The classifier ops' Python API (tf.nn.relu6/elu/selu/leaky_relu/softplus/softsign, top_k,
in_top_k) against TensorFlow's through one shared program (tf_side/classifier_api.py), the
gradient of SoftsignGrad (TensorFlow has none) against finite differences, and bad input."""
import importlib.util
import os

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script


def _shared_program():
    spec = importlib.util.spec_from_file_location("classifier_api", os.path.join(TF_SIDE_DIR, "classifier_api.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.program


def _arrays():
    rng = np.random.default_rng(16)
    x = np.concatenate([rng.normal(size=20) * 4, [0.5, -0.5, 5.5, 6.5, -7.0]]).astype(np.float32)
    logits = rng.normal(size=(6, 5)).astype(np.float32)
    logits[0] = [1, 2, 2, 0, 2]  # ties: the lower index first, and all count for in_top_k
    labels = np.array([2, 0, 4, 1, 3, 2], np.int32)
    return {"x": x, "logits": logits, "labels": labels}


def test_api_matches_tensorflow(tmp_path):
    python = require_tensorflow("test_api_matches_tensorflow")
    arrays = _arrays()
    np.savez(tmp_path / "in.npz", **arrays)
    run_tf_script(python, "classifier_api.py", str(tmp_path / "in.npz"), str(tmp_path / "out.npz"))
    theirs = np.load(tmp_path / "out.npz")
    with tf.Graph().as_default():
        tensors = _shared_program()(tf, arrays)
        with tf.Session() as sess:
            ours = sess.run(tensors)
    assert set(ours) == set(theirs.files)
    for name, value in ours.items():
        expected = theirs[name]
        assert value.dtype == expected.dtype and value.shape == expected.shape, name
        if np.issubdtype(expected.dtype, np.floating):
            np.testing.assert_allclose(value, expected, rtol=8 * np.finfo(np.float32).eps, atol=1e-6, err_msg=name)
        else:
            np.testing.assert_array_equal(value, expected, err_msg=name)


def test_softsign_grad_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    dy = rng.uniform(-1.5, 1.5, 7)
    x = np.concatenate([rng.uniform(-3, 3, 6), [0.7]])
    with tf.Graph().as_default():
        dy_t, x_t = tf.constant(dy), tf.constant(x)
        y = tf.get_default_graph().create_op("SoftsignGrad", [dy_t, x_t], {}).outputs[0]
        g_dy, g_x = tf.gradients(tf.reduce_sum(y * y), [dy_t, x_t])
        with tf.Session() as sess:
            got_dy, got_x = sess.run([g_dy, g_x])

    def f(dy, x):
        return np.sum((dy / (1 + np.abs(x)) ** 2) ** 2)
    h = 1e-6
    num_dy = np.array([(f(dy + h * e, x) - f(dy - h * e, x)) / (2 * h) for e in np.eye(7)])
    num_x = np.array([(f(dy, x + h * e) - f(dy, x - h * e)) / (2 * h) for e in np.eye(7)])
    np.testing.assert_allclose(got_dy, num_dy, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got_x, num_x, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("build, message", [
    (lambda: tf.nn.top_k(tf.constant([1.0, 2.0]), k=3), "must have last dimension >= k = 3"),
    (lambda: tf.nn.top_k(tf.constant(1.0), k=1), "rank"),
    (lambda: tf.nn.in_top_k(tf.constant([[1.0, 2.0]]), tf.constant([0, 1]), 1),
     "First dimension of predictions 1 must match length of targets 2"),
    (lambda: tf.nn.relu6(tf.constant(["a"])), "string"),
])
def test_bad_input_is_refused_while_building(build, message):
    with tf.Graph().as_default():
        with pytest.raises((ValueError, TypeError, tf.errors.InvalidArgumentError)) as e:
            build()
    assert message in str(e.value)


def test_k_fed_at_run_time_is_checked_by_the_kernel():
    with tf.Graph().as_default():
        k = tf.placeholder(tf.int32, [])
        values, _ = tf.nn.top_k(tf.constant([[3.0, 1.0, 2.0]]), k=k)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(values, {k: 2}), [[3.0, 2.0]])
            with pytest.raises(tf.errors.InvalidArgumentError, match="input must have at least k columns. Had 3, "
                                                                     "needed 4"):
                sess.run(values, {k: 4})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Need k >= 0, got -1"):
                sess.run(values, {k: -1})
