"""tf.space_to_batch_nd / batch_to_space_nd and TF1's 4-D space_to_batch / batch_to_space
(tf.nn.space_to_batch too): values against a NumPy reshape-transpose reference, static shapes,
round trips and gradients. The kernels themselves are compared with TensorFlow's in
test_tf_oracle_ops.py and test_tf_oracle_grads.py."""
import numpy as np
import pytest

import tensorweave as tf


def numpy_space_to_batch(x, block, paddings):
    """TensorFlow's definition: pad, reshape into blocks, move the block offsets first, fold them into the batch."""
    m = len(block)
    x = np.pad(x, [(0, 0)] + [tuple(p) for p in paddings] + [(0, 0)] * (x.ndim - 1 - m))
    b, spatial, rest = x.shape[0], x.shape[1:1 + m], x.shape[1 + m:]
    split = [b] + [d for s, k in zip(spatial, block) for d in (s // k, k)] + list(rest)
    y = x.reshape(split)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, y.ndim))
    return y.transpose(perm).reshape([b * int(np.prod(block))] + [s // k for s, k in zip(spatial, block)] + list(rest))


@pytest.mark.parametrize("shape,block,paddings", [
    ((2, 4, 6, 3), [2, 3], [[0, 0], [1, 2]]),
    ((1, 5, 2), [3], [[1, 0]]),
    ((2, 2, 4, 2, 1), [1, 2, 3], [[0, 0], [1, 1], [2, 2]]),
])
def test_nd_forms_match_numpy_and_invert_each_other(shape, block, paddings):
    x = np.random.default_rng(7).standard_normal(shape)
    expected = numpy_space_to_batch(x, block, paddings)
    to_batch = tf.space_to_batch_nd(tf.constant(x), block, paddings)
    back = tf.batch_to_space_nd(to_batch, block, paddings)
    assert to_batch.shape.as_list() == list(expected.shape)
    assert back.shape.as_list() == list(shape)
    with tf.Session() as sess:
        ours, round_trip = sess.run([to_batch, back])
    np.testing.assert_array_equal(ours, expected)
    np.testing.assert_array_equal(round_trip, x)


def test_four_d_forms_and_their_gradient():
    x = np.arange(2 * 4 * 5 * 3, dtype=np.float64).reshape(2, 4, 5, 3)
    p = tf.placeholder(tf.float64, [None, 4, 5, 3])
    paddings = [[0, 2], [1, 0]]
    to_batch = tf.space_to_batch(p, paddings, block_size=2)
    also = tf.nn.space_to_batch(p, paddings, block_shape=2)  # TF 2's keyword for the size
    back = tf.batch_to_space(to_batch, paddings, 2)
    assert to_batch.shape.as_list() == [None, 3, 3, 3]
    (grad,) = tf.gradients(tf.reduce_sum(to_batch * to_batch), [p])
    with tf.Session() as sess:
        a, b, c, g = sess.run([to_batch, also, back, grad], {p: x})
    np.testing.assert_array_equal(a, numpy_space_to_batch(x, [2, 2], paddings))
    np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(c, x)
    np.testing.assert_array_equal(g, 2 * x)  # every input cell lands once; padding gets nothing


def test_bad_blocks_are_refused_with_tensorflows_messages():
    x = tf.placeholder(tf.float32, [2, 4, 6, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"padded_shape\[1\]=8 is not divisible by block_shape\[1\]=3"):
        tf.space_to_batch_nd(x, [2, 3], [[0, 0], [1, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Paddings must be non-negative"):
        tf.space_to_batch_nd(x, [2, 3], [[0, 0], [-1, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Input batch dimension \(2\) is not divisible by product of block sizes \(6\)"):
        tf.batch_to_space_nd(x, [2, 3], [[0, 0], [0, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Product of block sizes overflows int64"):
        tf.space_to_batch_nd(x, tf.constant([2 ** 40, 2 ** 40], tf.int64), [[0, 0], [0, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"padded_shape\[0\] overflows int64"):
        tf.space_to_batch_nd(x, [2, 3], tf.constant([[2 ** 62, 2 ** 62], [0, 0]], tf.int64))
    block = tf.placeholder(tf.int32, [2])
    fed = tf.space_to_batch_nd(x, block, [[0, 0], [0, 0]])
    assert fed.shape.as_list() == [None, None, None, None]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Product of block sizes must be positive, got 0"):
            sess.run(fed, {block: [0, 2], x: np.zeros((2, 4, 6, 3), np.float32)})
    with pytest.raises(ValueError, match="space_to_batch needs a 4-D input"):
        tf.space_to_batch(tf.zeros([2, 4, 2]), [[0, 0], [0, 0]], block_size=2)
