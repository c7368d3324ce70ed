"""tf.linalg composites (cholesky_solve, trace, eye, matrix_transpose, slogdet) and the matrix
ops' answers to bad inputs, compared with TensorFlow's (tf_side/linalg_cases.py). The ops
themselves, and their gradients, are compared on random batches in the oracle tests."""
import json

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -0.25], [0.5, -0.25, 2.0]])
B = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 0.25]])
X = np.arange(24.0).reshape(2, 3, 4)

CASES = {
    "cholesky_solve": lambda: tf.linalg.cholesky_solve(tf.linalg.cholesky(A), B),
    "trace": lambda: tf.linalg.trace(X),
    "eye": lambda: tf.eye(2, 3, batch_shape=[2], dtype=tf.float64),
    "matrix_transpose": lambda: tf.linalg.matrix_transpose(X),
    "slogdet": lambda: tf.stack(list(tf.linalg.slogdet(-A))),
    "inverse_singular": lambda: tf.matrix_inverse(np.zeros((2, 2))),
    # Shape unknown while building: the kernel's check answers, as in TensorFlow's eager op.
    "inverse_not_square": lambda: tf.matrix_inverse(tf.placeholder_with_default(np.zeros((2, 3)), shape=None)),
    "solve_singular": lambda: tf.matrix_solve(np.array([[1.0, 2.0], [2.0, 4.0]]), np.ones((2, 1))),
    "cholesky_not_positive": lambda: tf.linalg.band_part(tf.cholesky(-np.eye(2)), -1, 0),
}


@pytest.fixture(scope="module")
def theirs():
    python = require_tensorflow("test_linalg_ops")
    return json.loads(run_tf_script(python, "linalg_cases.py").strip().splitlines()[-1])


def ours(name):
    g = tf.Graph()
    with g.as_default(), tf.Session(graph=g) as sess:
        try:
            return np.asarray(sess.run(CASES[name]())).tolist()
        except tf.errors.InvalidArgumentError as e:
            return {"error": e.message}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(theirs, name):
    got, expected = ours(name), theirs[name]
    if isinstance(expected, dict):
        assert isinstance(got, dict), f"{name}: TensorFlow fails with {expected['error']!r}, ours gave {got}"
        assert expected["error"] in got["error"]
    else:
        assert not isinstance(got, dict), f"{name}: ours failed: {got}"
        np.testing.assert_allclose(np.array(got, float), np.array(expected, float), rtol=1e-12, atol=1e-12,
                                   equal_nan=True)


def test_matrix_transpose_needs_a_known_rank():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="known rank >= 2"):
            tf.matrix_transpose(tf.placeholder(tf.float32))
