"""tf.tensor_scatter_nd_update / add / sub / min / max and TF 1.15's tf.tensor_scatter_update
aliases against TensorFlow (tf_side/tensor_scatter_cases.py): values, repeated indices, an int
dtype, and the error texts of out-of-range indices and mismatched updates. The ops run on
random data and edge values in test_tf_oracle_ops.py, their gradients in test_tf_oracle_grads.py."""
import json

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

T = np.arange(12.0).reshape(4, 3)

CASES = {
    "update": lambda: tf.tensor_scatter_nd_update(T, [[1], [3]], [[-1.0, -2.0, -3.0], [7.0, 8.0, 9.0]]),
    "add": lambda: tf.tensor_scatter_nd_add(T, [[0, 1], [0, 1], [2, 2]], [1.5, 2.5, -4.0]),
    "sub": lambda: tf.tensor_scatter_sub(T, [[3]], [[1.0, 1.0, 1.0]]),
    "min": lambda: tf.tensor_scatter_nd_min(T, [[1, 0], [2, 1]], [0.5, 100.0]),
    "max": lambda: tf.tensor_scatter_nd_max(T, [[1, 0], [2, 1]], [0.5, 100.0]),
    "int_update": lambda: tf.tensor_scatter_update(np.arange(6).reshape(2, 3), [[1, 2]], [-5]),
    "out_of_range": lambda: tf.tensor_scatter_nd_update(T, [[1], [5]], np.ones((2, 3))),
    "negative": lambda: tf.tensor_scatter_add(T, [[0, -1]], [1.0]),
    "outer_mismatch": lambda: tf.tensor_scatter_nd_update(tf.placeholder_with_default(T, None), [[1]], np.ones((2, 3))),
    "inner_mismatch": lambda: tf.tensor_scatter_nd_update(tf.placeholder_with_default(T, None), [[1, 1, 1]],
                                                          np.ones((1,))),
}


@pytest.fixture(scope="module")
def theirs():
    python = require_tensorflow("test_tensor_scatter")
    return json.loads(run_tf_script(python, "tensor_scatter_cases.py").strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(theirs, name):
    with tf.Graph().as_default(), tf.Session() as sess:
        try:
            got = np.asarray(sess.run(CASES[name]())).tolist()
        except tf.errors.InvalidArgumentError as e:
            got = {"error": e.message}
    expected = theirs[name]
    if isinstance(expected, dict):
        assert isinstance(got, dict), f"{name}: TensorFlow fails with {expected['error']!r}, ours gave {got}"
        assert expected["error"] in got["error"]
    else:
        assert got == expected


def test_out_of_range_names_the_op_and_the_index():
    with tf.Graph().as_default(), tf.Session() as sess:
        t = tf.tensor_scatter_nd_max(T, [[0], [9]], np.ones((2, 3)), name="clamp")
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"\(TensorScatterMax\): indices\[1\] = \[9\] does not index into shape \[4,3\]"):
            sess.run(t)


def test_vector_indices_are_refused_as_in_tensorflow():
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices must be at least 2-D"):
            sess.run(tf.tensor_scatter_nd_update(T, [1, 2], 5.0))


def test_ignore_policy_skips_out_of_range_indices():
    with tf.Graph().as_default(), tf.Session() as sess:
        t = tf.raw_ops.TensorScatterAdd(tensor=T, indices=[[1], [7], [-1]], updates=np.ones((3, 3)),
                                        bad_indices_policy="IGNORE")
        expected = T.copy()
        expected[1] += 1
        np.testing.assert_array_equal(sess.run(t), expected)
