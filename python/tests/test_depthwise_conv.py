"""tf.nn.depthwise_conv2d (TF1's `rate` as dilations), its gradients and
tf.nn.separable_conv2d against real TensorFlow; NCHW against NHWC; the errors. The raw ops
without dilation are also compared case by case in test_tf_oracle_ops.py / _grads.py."""

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_cases

# (input NHWC, filter [kh, kw, c, m], strides, rate, padding, dtype, pointwise out channels or None)
CASES = [
    ((2, 7, 6, 3), (3, 3, 3, 2), [1, 1, 1, 1], [1, 1], "SAME", np.float32, 4),
    ((1, 9, 8, 2), (3, 2, 2, 1), [1, 2, 2, 1], [1, 1], "VALID", np.float64, None),
    ((2, 9, 9, 2), (3, 3, 2, 2), [1, 1, 1, 1], [2, 2], "SAME", np.float64, 3),
    ((1, 10, 8, 3), (2, 3, 3, 1), [1, 1, 1, 1], [2, 3], "VALID", np.float32, None),
    # The threaded loops (depthwise_conv_loops.h): strided SAME with a multiplier (the input
    # gradient gathers from strided output rows), and enough rows (80 * 15) for the filter
    # gradient's partial sums to reach their cap and hold several rows each.
    ((2, 11, 10, 5), (3, 3, 5, 3), [1, 2, 2, 1], [1, 1], "SAME", np.float32, None),
    ((80, 30, 5, 2), (3, 3, 2, 1), [1, 2, 2, 1], [1, 1], "SAME", np.float64, None),
]


def test_depthwise_conv2d_and_gradients_match_tensorflow(tmp_path):
    python = require_tensorflow("test_depthwise_conv2d_and_gradients_match_tensorflow")
    rng = np.random.default_rng(5)
    arrays, attrs, ours = {}, [], []
    for i, (xs, ws, strides, rate, padding, dtype, pw_out) in enumerate(CASES):
        x, w = rng.normal(size=xs).astype(dtype), rng.normal(size=ws).astype(dtype)
        pw = rng.normal(size=(1, 1, ws[2] * ws[3], pw_out)).astype(dtype) if pw_out else None
        with tf.Graph().as_default():
            xt, wt = tf.constant(x), tf.constant(w)
            y = tf.nn.depthwise_conv2d(xt, wt, strides=strides, padding=padding, rate=rate)
            dy = tf.placeholder(y.dtype, y.shape)
            dx, dw = tf.gradients(y, [xt, wt], grad_ys=dy)
            sep = tf.nn.separable_conv2d(xt, wt, tf.constant(pw), strides, padding, rate=rate) if pw_out else None
            with tf.Session() as sess:
                y_value = sess.run(y)
                dy_value = rng.normal(size=y_value.shape).astype(dtype)
                got = dict(zip(("y", "dx", "dw"), sess.run([y, dx, dw], {dy: dy_value})))
                if sep is not None:
                    got["sep"] = sess.run(sep)
                    assert tuple(sep.shape.as_list()) == got["sep"].shape  # static shape as computed
                assert tuple(y.shape.as_list()) == y_value.shape
                ours.append(got)
        arrays.update({f"x{i}": x, f"w{i}": w, f"dy{i}": dy_value})
        if pw_out:
            arrays[f"pw{i}"] = pw
        attrs.append({"strides": strides, "rate": rate, "padding": padding})
    theirs = run_tf_cases(python, "depthwise_cases.py", tmp_path, arrays, attrs)
    for i, got in enumerate(ours):
        tol = 1e-5 if CASES[i][5] == np.float32 else 1e-12
        for name, value in got.items():
            expected = theirs[f"{name}{i}"]
            assert value.shape == expected.shape and value.dtype == expected.dtype, (i, name)
            np.testing.assert_allclose(value, expected, rtol=tol, atol=tol * 10, err_msg=f"case {i} {name}")


def test_nchw_matches_nhwc():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(2, 6, 7, 3))
    w = rng.normal(size=(3, 2, 3, 2))
    with tf.Graph().as_default():
        xt, wt = tf.constant(x), tf.constant(w)
        nhwc = tf.nn.depthwise_conv2d_native(xt, wt, [1, 2, 2, 1], "SAME", dilations=[1, 1, 2, 1])
        xc = tf.transpose(xt, [0, 3, 1, 2])
        nchw = tf.nn.depthwise_conv2d_native(xc, wt, [1, 1, 2, 2], "SAME", data_format="NCHW",
                                             dilations=[1, 1, 1, 2])
        grads_nhwc = tf.gradients(tf.reduce_sum(tf.square(nhwc)), [xt, wt])
        grads_nchw = tf.gradients(tf.reduce_sum(tf.square(nchw)), [xt, wt])
        with tf.Session() as sess:
            a, b, ga, gb = sess.run([nhwc, nchw, grads_nhwc, grads_nchw])
    assert a.shape == (2, 3, 4, 6)
    np.testing.assert_allclose(b.transpose(0, 2, 3, 1), a, rtol=1e-12)
    for u, v in zip(ga, gb):
        np.testing.assert_allclose(u, v, rtol=1e-12)


def test_depthwise_errors_name_what_is_wrong():
    x = tf.constant(np.zeros((1, 4, 4, 3), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="input has 3 channels but the depthwise filter expects 2"):
        tf.nn.depthwise_conv2d(x, tf.constant(np.zeros((2, 2, 2, 1), np.float32)), [1, 1, 1, 1], "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="input 0 must have rank 4 but has shape \[4,4,3\]"):
        tf.nn.depthwise_conv2d(tf.constant(np.zeros((4, 4, 3), np.float32)),
                               tf.constant(np.zeros((2, 2, 3, 1), np.float32)), [1, 1, 1, 1], "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="strides in the batch and channel dimensions must be 1"):
        tf.nn.depthwise_conv2d(x, tf.constant(np.zeros((2, 2, 3, 1), np.float32)), [2, 1, 1, 1], "SAME")
    # Unknown channels at graph time: the kernel checks them when it runs.
    p = tf.placeholder(tf.float32, [None, 4, 4, None])
    y = tf.nn.depthwise_conv2d(p, tf.constant(np.zeros((2, 2, 2, 1), np.float32)), [1, 1, 1, 1], "VALID")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="input has 3 channels but the depthwise filter"):
            sess.run(y, {p: np.zeros((1, 4, 4, 3), np.float32)})
        with pytest.raises(tf.errors.InvalidArgumentError, match="out_backprop has shape"):
            sess.run(tf.nn.depthwise_conv2d_native_backprop_input(
                [1, 4, 4, 2], tf.constant(np.zeros((2, 2, 2, 1), np.float32)),
                tf.constant(np.zeros((1, 2, 2, 2), np.float32)), [1, 1, 1, 1], "VALID"))
