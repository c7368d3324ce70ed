"""tf.gather and floor division (tf.floordiv / tf.floormod, Tensor // and %), against NumPy."""
import numpy as np
import pytest

import tensorweave as tf


def test_gather_along_axes():
    params = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    with tf.Session() as sess:
        p = tf.constant(params)
        a0, a1, a2, ind2d = sess.run([tf.gather(p, [1, 0, 1]), tf.gather(p, [2, 0], axis=1),
                                      tf.gather(p, tf.constant([3], tf.int64), axis=-1),
                                      tf.gather(p, [[0, 1], [1, 1]])])
    np.testing.assert_array_equal(a0, params[[1, 0, 1]])
    np.testing.assert_array_equal(a1, params[:, [2, 0]])
    np.testing.assert_array_equal(a2, params[..., [3]])
    assert ind2d.shape == (2, 2, 3, 4)
    np.testing.assert_array_equal(ind2d, params[[[0, 1], [1, 1]]])


def test_gather_batch_dims_picks_within_each_batch_row():
    params = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    idx = np.array([[2, 0], [1, 1]], np.int32)
    p = tf.placeholder(tf.float64, [None, 3, 4])
    default_axis = tf.gather(p, idx, batch_dims=1)  # axis defaults to batch_dims, as TF's
    last_axis = tf.gather(p, [[3, 0], [1, 2]], axis=2, batch_dims=1)
    assert default_axis.shape.as_list() == [2, 2, 4]
    loss = tf.reduce_sum(default_axis * default_axis)
    (grad,) = tf.gradients(loss, [p])
    with tf.Session() as sess:
        a, b, g = sess.run([default_axis, last_axis, grad], {p: params})
    np.testing.assert_array_equal(a, np.take_along_axis(params, idx[:, :, None], axis=1))
    np.testing.assert_array_equal(b, np.stack([params[0][:, [3, 0]], params[1][:, [1, 2]]]))
    expected = np.zeros_like(params)
    for r in range(2):
        for k in idx[r]:
            expected[r, k] += 2 * params[r, k]
    np.testing.assert_array_equal(g, expected)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"batch_dims \(1\) must be less than or equal to axis"):
        tf.gather(tf.constant(params), idx, axis=0, batch_dims=1)


def test_gather_out_of_range_names_the_index():
    idx = tf.placeholder(tf.int32, [None])
    out = tf.gather(tf.constant([1.0, 2.0, 3.0]), idx)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in \[0, 3\)"):
            sess.run(out, {idx: [0, 5]})


def test_floordiv_and_floormod_match_python():
    x = np.array([7, -7, 7, -7, 0], np.int32)
    y = np.array([2, 2, -2, -2, 3], np.int32)
    xf, yf = x.astype(np.float64) + 0.5, y.astype(np.float64)
    with tf.Session() as sess:
        a, b = tf.constant(x), tf.constant(y)
        q, r, q2, r2, fq, fr, rev = sess.run([tf.floordiv(a, b), tf.floormod(a, b), a // b, a % b,
                                              tf.constant(xf) // tf.constant(yf), tf.mod(tf.constant(xf), yf),
                                              17 // b])
    np.testing.assert_array_equal(q, x // y)
    np.testing.assert_array_equal(r, x % y)
    np.testing.assert_array_equal(q2, x // y)
    np.testing.assert_array_equal(r2, x % y)
    np.testing.assert_array_equal(fq, xf // yf)
    np.testing.assert_array_equal(fr, xf % yf)
    np.testing.assert_array_equal(rev, 17 // y)


def test_integer_floordiv_by_zero_is_an_error():
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="integer division by zero"):
            sess.run(tf.floordiv(tf.constant([1, 2]), tf.constant([1, 0])))


def test_floormod_gradient():
    x = tf.placeholder(tf.float64, [3])
    y = tf.constant([0.5, -0.75, 2.0], tf.float64)
    gx, gy = tf.gradients(tf.reduce_sum(tf.floormod(x, y)), [x, y])
    xv = np.array([1.25, 1.0, -3.0])
    with tf.Session() as sess:
        gxv, gyv = sess.run([gx, gy], {x: xv})
    np.testing.assert_array_equal(gxv, np.ones(3))
    np.testing.assert_array_equal(gyv, -np.floor(xv / np.array([0.5, -0.75, 2.0])))


def test_embedding_lookup_trains_the_rows_it_used():
    table = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    ids = tf.placeholder(tf.int32, [None])
    loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {ids: [3, 1, 3]})
        got = sess.run(table)
    expected = np.arange(12, dtype=np.float32).reshape(4, 3)
    expected[3] -= 1.0  # used twice: 2 * 0.5
    expected[1] -= 0.5
    np.testing.assert_array_equal(got, expected)
    # Lookups over several shards are compared with TensorFlow in test_embedding_ops.py.
    with pytest.raises(ValueError, match="Unrecognized partition strategy: modulo"):
        tf.nn.embedding_lookup([table, table], ids, partition_strategy="modulo")


def test_unsorted_segment_sum_matches_numpy():
    data = np.arange(10, dtype=np.float64).reshape(5, 2)
    ids = np.array([1, -1, 1, 0, 3])
    with tf.Session() as sess:
        got = sess.run(tf.unsorted_segment_sum(data, ids, 4))
    expected = np.zeros((4, 2))
    for row, i in zip(data, ids):
        if i >= 0:
            expected[i] += row
    np.testing.assert_array_equal(got, expected)


def test_clip_by_value_and_its_gradient():
    x = tf.placeholder(tf.float32, [5])
    y = tf.clip_by_value(x, -1.0, 2.0)
    (g,) = tf.gradients(tf.reduce_sum(y * 3.0), [x])
    with tf.Session() as sess:
        yv, gv = sess.run([y, g], {x: np.array([-3, -0.5, 0, 1.5, 7], np.float32)})
    np.testing.assert_array_equal(yv, [-1, -0.5, 0, 1.5, 2])
    np.testing.assert_array_equal(gv, [0, 3, 3, 3, 0])


def test_xw_plus_b():
    x = np.array([[1.0, 2.0]], np.float32)
    w = np.array([[1.0, 0.0, -1.0], [2.0, 1.0, 0.5]], np.float32)
    b = np.array([0.5, -1.0, 0.0], np.float32)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.nn.xw_plus_b(x, w, b)), x @ w + b)
