"""tf.custom_gradient, tf.RegisterGradient with gradient_override_map, tf.NotDifferentiable
and tf.gradients' stop_gradients / unconnected_gradients against TensorFlow
(tf_side/gradient_function_cases.py builds the same graphs on both sides), and their errors."""
import sys

import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, assert_close_to_tensorflow, shared_cases_fixtures, shared_cases_names

sys.path.insert(0, TF_SIDE_DIR)
import gradient_function_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()

theirs, ours = shared_cases_fixtures("test_gradient_functions", cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    assert_close_to_tensorflow(ours[name], theirs[0][name], 1e-12, 1e-6)


def test_errors():
    with pytest.raises(KeyError, match="Registering two gradient with name 'Square'"):
        tf.RegisterGradient("Square")(lambda op, grad: grad)
    with pytest.raises(TypeError, match="op_type must be a string"):
        tf.NotDifferentiable(3)
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        tf.gradients(tf.constant(1.0), tf.constant(2.0), unconnected_gradients="maybe")
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        with tf.get_default_graph().gradient_override_map({"Exp": "NoSuchGradient"}):
            y = tf.exp(x)
        with pytest.raises(tf.errors.InvalidArgumentError, match="it asks for 'NoSuchGradient'"):
            tf.gradients(y, x)

        @tf.custom_gradient
        def wrong(t):
            return t * 2.0, lambda dy: (dy, dy)
        with pytest.raises(ValueError, match="expected to return 1 gradients, but returned 2"):
            tf.gradients(wrong(x), x)
        with pytest.raises(KeyError, match="UnsortedSegmentMax"):
            tf.NotDifferentiable("UnsortedSegmentMax")  # Has a gradient already.
        tf.NotDifferentiable("ExpWithoutGradient")
        with tf.get_default_graph().gradient_override_map({"Exp": "ExpWithoutGradient"}):
            z = tf.exp(x)
        assert tf.gradients(z, x) == [None]
