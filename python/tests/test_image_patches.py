"""tf.extract_image_patches / tf.image.extract_patches (the random-input values and gradients
against TensorFlow's kernel are in test_tf_oracle_ops.py / test_tf_oracle_grads.py): the
Python signatures, static shapes, and the gradient in a graph whose batch size is unknown,
checked against central differences."""
import numpy as np
import pytest

import tensorweave as tf
from numeric_gradients import central_differences


def images_patches(x):
    return tf.extract_image_patches(x, ksizes=[1, 3, 2, 1], strides=[1, 2, 1, 1], rates=[1, 1, 2, 1], padding="SAME")


def test_gradient_with_unknown_batch_matches_central_differences():
    rng = np.random.default_rng(7)
    x_value = rng.uniform(-1, 1, (2, 5, 4, 3))
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float64, [None, 5, 4, 3])
        p = images_patches(x)
        assert p.shape.as_list() == [None, 3, 4, 18]
        w = tf.constant(rng.uniform(-1, 1, (2, 3, 4, 18)))
        loss = tf.reduce_sum(w * p)
        (dx,) = tf.gradients(loss, [x])
        ours = sess.run(dx, {x: x_value})
        expected = central_differences(lambda v: sess.run(loss, {x: v}), x_value)
    np.testing.assert_allclose(ours, expected, rtol=1e-7, atol=1e-7)


def test_names_and_aliases():
    x = np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1)
    with tf.Graph().as_default(), tf.Session() as sess:
        a = tf.extract_image_patches(x, sizes=[1, 2, 2, 1], strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="VALID")
        b = tf.image.extract_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID", name="p")
        c = tf.image.extract_image_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
        assert b.op.type == "ExtractImagePatches" and b.op.name == "p"
        va, vb, vc = sess.run([a, b, c])
    np.testing.assert_array_equal(va[0, 0, 0], [0, 1, 3, 4])
    np.testing.assert_array_equal(va, vb)
    np.testing.assert_array_equal(va, vc)
    with pytest.raises(ValueError):
        tf.extract_image_patches(x, ksizes=[1, 2, 2, 1], sizes=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                 rates=[1, 1, 1, 1], padding="VALID")
