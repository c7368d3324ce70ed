"""tf.nn.max_pool / avg_pool, their gradients and their gradients' gradients against real
TensorFlow (a subprocess with the pinned TF): SAME / VALID / explicit padding, strides,
NHWC and NCHW, float32 and float64, ties in a max's window."""

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_cases

# (input NHWC, ksize, strides, padding, data_format, dtype, kinds, integer-valued input)
CASES = [
    ((2, 7, 6, 3), [1, 3, 3, 1], [1, 2, 2, 1], "SAME", "NHWC", np.float32, ("max", "avg"), False),
    ((1, 8, 9, 2), [1, 2, 3, 1], [1, 2, 3, 1], "VALID", "NHWC", np.float64, ("max", "avg"), False),
    ((2, 5, 5, 4), [1, 1, 2, 2], [1, 1, 1, 1], "SAME", "NCHW", np.float32, ("max", "avg"), False),
    ((1, 6, 5, 2), [1, 3, 2, 1], [1, 2, 2, 1], [[0, 0], [1, 1], [0, 1], [0, 0]], "NHWC", np.float64, ("max",), False),
    ((1, 4, 4, 2), [1, 2, 2, 1], [1, 1, 1, 1], "VALID", "NHWC", np.float32, ("max", "avg"), True),  # ties
    ((3, 5, 4, 1), [1, 5, 4, 1], [1, 1, 1, 1], "VALID", "NHWC", np.float32, ("max", "avg"), False),  # global
]


def _to_format(nhwc, data_format):
    return nhwc if data_format == "NHWC" else (nhwc[0], nhwc[3], nhwc[1], nhwc[2])


def _pool(kind, x, ksize, strides, padding, fmt):
    op = tf.nn.max_pool if kind == "max" else tf.nn.avg_pool
    return op(x, ksize=ksize, strides=strides, padding=padding, data_format=fmt)


def test_pooling_and_its_gradients_match_tensorflow(tmp_path):
    python = require_tensorflow("test_pooling_and_its_gradients_match_tensorflow")
    rng = np.random.default_rng(5)
    arrays, attrs, ours = {}, [], {}
    for i, (xs, ksize, strides, padding, fmt, dtype, kinds, ties) in enumerate(CASES):
        shape = _to_format(xs, fmt)
        x = (rng.integers(0, 3, shape) if ties else rng.normal(size=shape)).astype(dtype)
        g = tf.Graph()
        with g.as_default():
            xt = tf.constant(x)
            for kind in kinds:
                y = _pool(kind, xt, ksize, strides, padding, fmt)
                dy = tf.placeholder(y.dtype, y.shape)
                (dx,) = tf.gradients(y, [xt], grad_ys=dy)
                ddx = tf.placeholder(dx.dtype, x.shape)
                with tf.Session() as sess:
                    y_value = sess.run(y)
                    dy_value = arrays.setdefault(f"dy{i}", rng.normal(size=y_value.shape).astype(dtype))
                    ddx_value = arrays.setdefault(f"ddx{i}", rng.normal(size=x.shape).astype(dtype))
                    ours[f"{kind}_y{i}"] = y_value
                    ours[f"{kind}_dx{i}"] = sess.run(dx, {dy: dy_value})
                    if isinstance(padding, str):
                        (ddy,) = tf.gradients(dx, [dy], grad_ys=ddx)
                        ours[f"{kind}_ddy{i}"] = sess.run(ddy, {dy: dy_value, ddx: ddx_value})
        arrays[f"x{i}"] = x
        explicit = not isinstance(padding, str)
        attrs.append({"ksize": ksize, "strides": strides, "data_format": fmt, "kinds": list(kinds),
                      "padding": "EXPLICIT" if explicit else padding,
                      "explicit_paddings": [p for pair in padding for p in pair] if explicit else []})
    theirs = run_tf_cases(python, "pool_cases.py", tmp_path, arrays, attrs)
    assert sorted(theirs.files) == sorted(ours), "both sides computed the same values"
    for key, value in ours.items():
        expected = theirs[key]
        assert value.shape == expected.shape and value.dtype == expected.dtype, key
        # Maxima and their routing are exact; averages are sums in another order.
        tol = 0 if key.startswith("max") else (1e-6 if value.dtype == np.float32 else 1e-14)
        np.testing.assert_allclose(value, expected, rtol=tol, atol=tol, err_msg=key)


def test_pooled_shapes_are_known_while_building():
    x = tf.placeholder(tf.float32, [None, 28, 28, 32])
    assert tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME").shape.as_list() == [None, 14, 14, 32]
    assert tf.nn.avg_pool(x, 3, 2, "VALID").shape.as_list() == [None, 13, 13, 32]
    nchw = tf.placeholder(tf.float32, [8, 3, 10, None])
    assert tf.nn.max_pool2d(nchw, 2, 2, "VALID", data_format="NCHW").shape.as_list() == [8, 3, 5, None]


def test_pooling_errors_name_what_is_wrong():
    x = tf.constant(np.zeros((1, 4, 4, 3), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="ksize in the batch and channel dimensions must be 1"):
        tf.nn.max_pool(x, [2, 2, 2, 1], [1, 1, 1, 1], "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"strides must be positive"):
        tf.nn.avg_pool(x, 2, [1, 0, 1, 1], "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"window \(5\) is larger than the input's height"):
        tf.nn.max_pool(x, [1, 5, 1, 1], 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="padding must be SAME or VALID, got 'EXPLICIT'"):
        tf.nn.avg_pool(x, 2, 1, "EXPLICIT")
    with pytest.raises(tf.errors.InvalidArgumentError, match="explicit paddings must be smaller than the window"):
        tf.nn.max_pool(x, 2, 1, [[0, 0], [2, 0], [0, 0], [0, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be 4-dimensional|rank"):
        tf.nn.max_pool(tf.constant(np.zeros((4, 4, 3), np.float32)), 2, 1, "SAME")
    v = tf.placeholder(tf.float32)  # rank unknown until run: the kernel checks
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="input must be 4-dimensional"):
        sess.run(tf.nn.max_pool(v, 2, 1, "SAME"), {v: np.zeros((4, 4, 3), np.float32)})


def test_a_small_cnn_with_pooling_trains():
    rng = np.random.default_rng(0)
    images = rng.normal(size=(32, 8, 8, 1)).astype(np.float32)
    labels = (images[:, :4].max(axis=(1, 2, 3)) > images[:, 4:].max(axis=(1, 2, 3))).astype(np.int64)
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    y = tf.placeholder(tf.int64, [None])
    w = tf.Variable(rng.normal(size=(3, 3, 1, 8)).astype(np.float32) * 0.3)
    h = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, w, strides=1, padding="SAME")), 2, 2, "SAME")
    h = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    flat = tf.reshape(h, [-1, int(np.prod(h.shape.as_list()[1:]))])
    logits = tf.matmul(flat, tf.Variable(np.zeros((flat.shape.as_list()[1], 2), np.float32)))
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: images, y: labels})
        for _ in range(150):
            sess.run(train, {x: images, y: labels})
        last = sess.run(loss, {x: images, y: labels})
    assert last < 0.6 * first, (first, last)
