"""tf.bitcast against NumPy's view: same-size, widening and narrowing dtypes, static shapes and
the shape errors (the kernel is compared with TensorFlow's in test_tf_oracle_ops.py)."""
import numpy as np
import pytest

import tensorweave as tf


@pytest.mark.parametrize("source,to", [
    (np.array([[1.5, -2.0, np.inf]], np.float32), np.int32),
    (np.array([1.5, -2.0], np.float64), np.uint8),
    (np.arange(8, dtype=np.uint8).reshape(2, 4), np.float32),
    (np.array([[1 + 2j, -3j]], np.complex64), np.float64),
    (np.array([7, -1], np.int64), np.float16),
])
def test_bitcast_is_numpys_view(source, to):
    out = tf.bitcast(tf.constant(source), tf.as_dtype(to))
    wide, narrow = np.dtype(to).itemsize, source.dtype.itemsize
    if wide < narrow:
        expected = source.view(to).reshape(source.shape + (narrow // wide,))
    elif wide > narrow:
        expected = source.view(to).reshape(source.shape[:-1])
    else:
        expected = source.view(to)
    assert out.shape.as_list() == list(expected.shape)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), expected)


def test_bitcast_shape_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot bitcast due to shape. 3 does not match 4"):
        tf.bitcast(tf.constant(np.zeros((2, 3), np.uint8)), tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least rank 1 but is rank 0"):
        tf.bitcast(tf.constant(1, tf.int16), tf.int32)
    fed = tf.placeholder(tf.uint8, [None, None])
    out = tf.bitcast(fed, tf.int32)
    assert out.shape.as_list() == [None]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot bitcast due to shape. 2 does not match 4"):
            sess.run(out, {fed: np.zeros((3, 2), np.uint8)})
