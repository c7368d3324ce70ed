"""tf.hessians against TensorFlow (tf_side/hessian_cases.py builds the same graphs on both
sides) and against central differences of tf.gradients; and its refusal of shapes it
cannot unroll."""
import sys

import numpy as np
import pytest

import tensorweave as tf
from numeric_gradients import central_differences
from tf_peer import TF_SIDE_DIR, assert_close_to_tensorflow, shared_cases_fixtures, shared_cases_names

sys.path.insert(0, TF_SIDE_DIR)
import hessian_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()

theirs, ours = shared_cases_fixtures("test_hessians", cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    assert_close_to_tensorflow(ours[name], theirs[0][name], 1e-12, 1e-5)


def test_matches_central_differences_of_the_gradient():
    x0 = np.array([0.3, -0.7, 1.1])
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float64, [3])
        y = tf.reduce_sum(tf.sin(x) * x[0]) + tf.reduce_prod(x)
        hessian = sess.run(tf.hessians(y, x)[0], {x: x0})
        grad = tf.gradients(y, x)[0]
        for i in range(3):
            row = central_differences(lambda v, i=i: sess.run(grad, {x: v})[i], x0)
            np.testing.assert_allclose(hessian[i], row, atol=1e-7)


def test_needs_a_static_shape():
    x = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="fully defined shape"):
        tf.hessians(tf.reduce_sum(x * x), x)


def test_a_linear_function_has_a_zero_hessian():
    # TensorFlow's while_loop version fails here ("None values not supported"); zeros are the answer.
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.constant([1.0, 2.0])
        np.testing.assert_array_equal(sess.run(tf.hessians(tf.reduce_sum(v * 2.0), v)[0]), np.zeros((2, 2)))
