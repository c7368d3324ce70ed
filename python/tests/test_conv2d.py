"""tf.nn.conv2d and its gradients against real TensorFlow (a subprocess with the pinned TF):
strides, dilations, SAME / VALID / explicit padding, NHWC and NCHW, float32 and float64."""

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_cases

# (input NHWC, filter, strides, dilations, padding, data_format, dtype)
CASES = [
    ((2, 7, 6, 3), (3, 3, 3, 4), [1, 1, 1, 1], [1, 1, 1, 1], "SAME", "NHWC", np.float32),
    ((1, 8, 9, 2), (3, 2, 2, 5), [1, 2, 3, 1], [1, 1, 1, 1], "VALID", "NHWC", np.float64),
    ((2, 9, 9, 1), (3, 3, 1, 2), [1, 1, 1, 1], [1, 2, 2, 1], "SAME", "NHWC", np.float64),
    ((1, 5, 6, 3), (2, 3, 3, 2), [1, 2, 2, 1], [1, 1, 1, 1], [[0, 0], [1, 2], [0, 1], [0, 0]], "NHWC", np.float32),
    ((2, 6, 5, 4), (1, 1, 4, 3), [1, 1, 2, 2], [1, 1, 1, 1], "SAME", "NCHW", np.float32),
    # The forward's paths (conv_forward.h): a 1x1 unit-stride filter is one GEMM on the input;
    # enough positions for several cache-sized blocks, one of them across two images.
    ((2, 5, 7, 6), (1, 1, 6, 3), [1, 1, 1, 1], [1, 1, 1, 1], "VALID", "NHWC", np.float64),
    ((2, 16, 16, 32), (3, 3, 32, 8), [1, 1, 1, 1], [1, 1, 1, 1], "SAME", "NHWC", np.float32),
    ((3, 20, 20, 8), (3, 3, 8, 4), [1, 1, 1, 1], [1, 1, 1, 1], "VALID", "NHWC", np.float64),
    # float32 with output channels in multiples of 16 takes the direct AVX-512 kernel where
    # built (conv_direct_avx512.h): tiles of 6 pixels (and a remainder), 64 + 16*k channels,
    # padding on every side, strides, dilations, a window partly above or below the image.
    ((2, 9, 13, 5), (3, 3, 5, 80), [1, 1, 1, 1], [1, 1, 1, 1], "SAME", "NHWC", np.float32),
    ((1, 11, 14, 3), (5, 4, 3, 48), [1, 2, 3, 1], [1, 1, 1, 1], "SAME", "NHWC", np.float32),
    ((2, 12, 12, 6), (3, 3, 6, 32), [1, 1, 1, 1], [1, 2, 2, 1], "SAME", "NHWC", np.float32),
    ((2, 8, 7, 16), (1, 1, 16, 16), [1, 1, 1, 1], [1, 1, 1, 1], "VALID", "NHWC", np.float32),
    ((1, 6, 5, 16), (2, 3, 16, 16), [1, 1, 1, 1], [1, 1, 1, 1], [[0, 0], [2, 1], [1, 3], [0, 0]], "NHWC",
     np.float32),
    ((2, 5, 6, 7), (3, 2, 7, 16), [1, 1, 1, 1], [1, 1, 1, 1], "SAME", "NCHW", np.float32),
    # Unit-stride input gradients with input channels in multiples of 16 run as a forward
    # convolution on the direct kernel (conv_forward.h), padded by k - 1 - pad: also < 0.
    ((2, 9, 8, 32), (3, 3, 32, 16), [1, 1, 1, 1], [1, 1, 1, 1], "SAME", "NHWC", np.float32),
    ((1, 5, 6, 16), (2, 2, 16, 16), [1, 1, 1, 1], [1, 1, 1, 1], [[0, 0], [3, 0], [0, 2], [0, 0]], "NHWC",
     np.float32),
]


def _to_format(nhwc, data_format):
    return nhwc if data_format == "NHWC" else (nhwc[0], nhwc[3], nhwc[1], nhwc[2])


def test_conv2d_and_its_gradients_match_tensorflow(tmp_path):
    python = require_tensorflow("test_conv2d_and_its_gradients_match_tensorflow")
    rng = np.random.default_rng(3)
    arrays, attrs, ours = {}, [], []
    for i, (xs, ws, strides, dilations, padding, fmt, dtype) in enumerate(CASES):
        x = rng.normal(size=_to_format(xs, fmt)).astype(dtype)
        w = rng.normal(size=ws).astype(dtype)
        g = tf.Graph()
        with g.as_default():
            xt, wt = tf.constant(x), tf.constant(w)
            y = tf.nn.conv2d(xt, wt, strides=strides, padding=padding, data_format=fmt, dilations=dilations)
            dy = tf.placeholder(y.dtype, y.shape)
            dx, dw = tf.gradients(y, [xt, wt], grad_ys=dy)
            with tf.Session() as sess:
                y_value = sess.run(y)
                dy_value = rng.normal(size=y_value.shape).astype(dtype)
                ours.append((y_value,) + tuple(sess.run([dx, dw], {dy: dy_value})))
        arrays.update({f"x{i}": x, f"w{i}": w, f"dy{i}": dy_value})
        attrs.append({"strides": strides, "dilations": dilations, "padding": padding, "data_format": fmt})
    theirs = run_tf_cases(python, "conv2d_cases.py", tmp_path, arrays, attrs)
    dilated = sum(any(d != 1 for d in case[3]) for case in CASES)  # y only: TF has no dilated backprops
    assert len(theirs.files) == 3 * len(CASES) - 2 * dilated
    for i, (y, dx, dw) in enumerate(ours):
        # Sums of up to kh*kw*c products in another order: float32 within 1e-5 relative.
        tol = 1e-5 if CASES[i][-1] == np.float32 else 1e-12
        for name, value in (("y", y), ("dx", dx), ("dw", dw)):
            if f"{name}{i}" not in theirs.files:
                continue  # TensorFlow's CPU kernels have no dilated backprops (finite differences in C++)
            expected = theirs[f"{name}{i}"]
            assert value.shape == expected.shape and value.dtype == expected.dtype, (i, name)
            np.testing.assert_allclose(value, expected, rtol=tol, atol=tol * 10, err_msg=f"case {i} {name}")


def test_conv2d_errors_name_what_is_wrong():
    x = tf.constant(np.zeros((1, 4, 4, 3), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="input has 3 channels but the filter expects 2"):
        tf.nn.conv2d(x, tf.constant(np.zeros((2, 2, 2, 1), np.float32)), strides=[1, 1, 1, 1], padding="SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="strides in the batch and channel dimensions must be 1"):
        tf.nn.conv2d(x, tf.constant(np.zeros((2, 2, 3, 1), np.float32)), strides=[2, 1, 1, 1], padding="SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="padding must be SAME, VALID or EXPLICIT"):
        tf.nn.conv2d(x, tf.constant(np.zeros((2, 2, 3, 1), np.float32)), strides=1, padding="FULL")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"window \(5\) is larger than the input's height"):
        tf.nn.conv2d(x, tf.constant(np.zeros((5, 1, 3, 1), np.float32)), strides=1, padding="VALID")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"node 'Conv2D(_\d+)?' \(Conv2D\): strides must be positive, got \[1,0,1,1\]"):
        tf.nn.conv2d(x, tf.constant(np.zeros((2, 2, 3, 1), np.float32)), strides=[1, 0, 1, 1], padding="SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"\(Conv2D\): input 0 must have rank 4 but has shape \[4,4,3\]"):
        tf.nn.conv2d(x[0], tf.constant(np.zeros((2, 2, 3, 1), np.float32)), strides=1, padding="SAME")


def test_a_small_cnn_trains():
    rng = np.random.default_rng(0)
    images = rng.normal(size=(16, 6, 6, 1)).astype(np.float32)
    labels = (images[:, :3].sum(axis=(1, 2, 3)) > images[:, 3:].sum(axis=(1, 2, 3))).astype(np.int64)
    x = tf.placeholder(tf.float32, [None, 6, 6, 1])
    y = tf.placeholder(tf.int64, [None])
    w = tf.Variable(rng.normal(size=(3, 3, 1, 4)).astype(np.float32) * 0.3)
    h = tf.nn.relu(tf.nn.conv2d(x, w, strides=[1, 2, 2, 1], padding="SAME"))
    logits = tf.matmul(tf.reshape(h, [-1, 3 * 3 * 4]), tf.Variable(np.zeros((36, 2), np.float32)))
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=tf.one_hot(y, 2), logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: images, y: labels})
        for _ in range(100):
            sess.run(train, {x: images, y: labels})
        last = sess.run(loss, {x: images, y: labels})
    assert last < 0.5 * first, (first, last)


def test_direct_float32_kernels_agree_with_the_float64_path_where_tensorflow_has_no_kernel():
    # Dilated backprops: TensorFlow's CPU has none to compare with, so the float32 direct
    # kernels (conv_direct_avx512.h, conv_filter_grad_avx512.h, where built) are checked
    # against the float64 im2col path on the same values.
    rng = np.random.default_rng(12)
    x = rng.normal(size=(2, 12, 11, 8))
    w = rng.normal(size=(3, 3, 8, 32))
    for strides, dilations, padding in (([1, 1, 1, 1], [1, 2, 2, 1], "SAME"), ([1, 1, 1, 1], [1, 3, 2, 1], "VALID")):
        results = {}
        for dtype in (np.float32, np.float64):
            with tf.Graph().as_default():
                xt, wt = tf.constant(x.astype(dtype)), tf.constant(w.astype(dtype))
                y = tf.nn.conv2d(xt, wt, strides=strides, padding=padding, dilations=dilations)
                dy = rng.normal(size=y.shape.as_list()) if dtype == np.float32 else results["dy"]
                results["dy"] = dy
                dx, dw = tf.gradients(y, [xt, wt], grad_ys=tf.constant(dy.astype(dtype)))
                with tf.Session() as sess:
                    results[dtype] = sess.run([y, dx, dw])
        for name, got, expected in zip(("y", "dx", "dw"), results[np.float32], results[np.float64]):
            np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4, err_msg=f"{dilations} {padding} {name}")
