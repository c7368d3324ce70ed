"""tf.nn.fused_batch_norm (FusedBatchNormV3 and its gradient), batch_normalization, moments
and l2_normalize against real TensorFlow (a subprocess with the pinned TF): values and the
gradients of x, scale and offset, NHWC and NCHW, training and inference, an
exponential_avg_factor, and the second order (FusedBatchNormGrad's gradient); both sides
build the same graphs (batch_norm_graphs.py)."""

import numpy as np
import pytest

import tensorweave as tf
from batch_norm_graphs import build
from tf_peer import require_tensorflow, run_tf_cases
from tensorweave.framework import _op


def _raw(op, inputs, attrs):
    return list(_op(op, [t for _, t in inputs], attrs).outputs)


def _fused(shape, data_format, is_training, factor=1.0, stats=True, epsilon=0.001, second_order=False):
    return {"kind": "fused", "shape": shape, "data_format": data_format, "is_training": is_training,
            "factor": factor, "stats": stats, "epsilon": epsilon, "second_order": second_order}


CASES = [
    _fused((2, 5, 4, 3), "NHWC", True, stats=False, second_order=True),
    _fused((3, 4, 3, 5), "NCHW", True, stats=False, second_order=True),
    _fused((2, 3, 3, 4), "NHWC", True, factor=0.25),
    _fused((2, 4, 3, 3), "NCHW", True, factor=0.6, epsilon=1e-6),  # epsilon below TF's bound
    _fused((2, 3, 4, 3), "NHWC", False, second_order=True),
    _fused((2, 3, 5, 2), "NCHW", False, second_order=True),
    _fused((1, 1, 1, 4), "NHWC", True, stats=False),  # one element per channel: variance 0
    _fused((0, 2, 2, 3), "NHWC", True, factor=0.5),  # an empty batch: NaN statistics
    # Each op by name, every output compared (V3's forward is fused_batch_norm's op above).
    {"kind": "raw", "op": "FusedBatchNorm", "shape": (2, 3, 2, 3), "data_format": "NHWC",
     "attrs": {"epsilon": 1e-3, "is_training": True, "exponential_avg_factor": 0.5, "data_format": "NHWC"}},
    {"kind": "raw", "op": "FusedBatchNormV2", "shape": (2, 3, 2, 3), "data_format": "NCHW",
     "attrs": {"epsilon": 1e-4, "is_training": False, "data_format": "NCHW"}},
    {"kind": "raw", "op": "FusedBatchNormV3", "shape": (3, 2, 2, 2), "data_format": "NHWC",
     "attrs": {"epsilon": 1e-3, "is_training": True, "data_format": "NHWC"}},
    {"kind": "raw", "op": "FusedBatchNormGrad", "shape": (2, 3, 2, 3), "data_format": "NHWC",
     "attrs": {"epsilon": 1e-3, "is_training": True, "data_format": "NHWC"}},
    {"kind": "raw", "op": "FusedBatchNormGradV2", "shape": (2, 3, 4, 2), "data_format": "NCHW",
     "attrs": {"epsilon": 1e-3, "is_training": True, "data_format": "NCHW"}},
    {"kind": "raw", "op": "FusedBatchNormGradV3", "shape": (2, 2, 3, 3), "data_format": "NHWC",
     "attrs": {"epsilon": 1e-2, "is_training": False, "data_format": "NHWC"}},
    {"kind": "plain", "shape": (4, 3, 5), "epsilon": 1e-3},
    {"kind": "moments", "shape": (4, 3, 5), "axes": [0, 1], "keep_dims": False},
    {"kind": "moments", "shape": (2, 3, 4, 2), "axes": [0, 1, 2], "keep_dims": True},
    {"kind": "l2_normalize", "shape": (3, 4), "axis": 1},
    {"kind": "l2_normalize", "shape": (2, 3, 2), "axis": [0, 2]},
]


def _channels(case):
    s = case["shape"]
    return s[1] if case.get("data_format") == "NCHW" else s[-1]


def _arrays(rng, i, case):
    f = lambda *shape: rng.normal(size=shape).astype(np.float32)  # noqa: E731
    shape, a = case["shape"], {}
    a[f"x_{i}"] = f(*shape) * 2 + 0.5
    if case["kind"] == "fused":
        c = _channels(case)
        a.update({f"scale_{i}": f(c), f"offset_{i}": f(c), f"mean_{i}": f(c),
                  f"variance_{i}": rng.uniform(0.5, 2, c).astype(np.float32), f"dy_{i}": f(*shape),
                  f"ddx_{i}": f(*shape), f"ddscale_{i}": f(c), f"ddoffset_{i}": f(c)})
    elif case["kind"] == "raw":
        c = _channels(case)
        x = a[f"x_{i}"]
        axes = (0, 2, 3) if case["data_format"] == "NCHW" else (0, 1, 2)
        training = case["attrs"]["is_training"]
        # The gradient ops' reserve spaces: the batch's statistics when training, else a
        # population's.
        mean = x.mean(axis=axes) if training else f(c)
        variance = x.var(axis=axes) if training else rng.uniform(0.5, 2, c).astype(np.float32)
        a.update({f"scale_{i}": f(c), f"offset_{i}": f(c), f"mean_{i}": f(c),
                  f"variance_{i}": rng.uniform(0.5, 2, c).astype(np.float32), f"y_backprop_{i}": f(*shape),
                  f"reserve_space_1_{i}": mean.astype(np.float32), f"reserve_space_2_{i}": variance.astype(np.float32),
                  f"reserve_space_3_{i}": np.zeros(0, np.float32)})
    elif case["kind"] == "plain":
        c = shape[-1]
        a.update({f"scale_{i}": f(c), f"offset_{i}": f(c), f"mean_{i}": f(c),
                  f"variance_{i}": rng.uniform(0.5, 2, c).astype(np.float32), f"dy_{i}": f(*shape)})
    elif case["kind"] == "moments":
        axes = case["axes"]
        reduced = [1 if d in axes else n for d, n in enumerate(shape)] if case["keep_dims"] else \
            [n for d, n in enumerate(shape) if d not in axes]
        a.update({f"dmean_{i}": f(*reduced), f"dvariance_{i}": f(*reduced)})
    else:
        a[f"dy_{i}"] = f(*shape)
    return a


def test_batch_norm_ops_and_gradients_match_tensorflow(tmp_path):
    python = require_tensorflow("test_batch_norm_ops_and_gradients_match_tensorflow")
    rng = np.random.default_rng(16)
    arrays = {}
    for i, case in enumerate(CASES):
        arrays.update(_arrays(rng, i, case))
    ours = {}
    with tf.Graph().as_default():
        fetches = {}
        for i, case in enumerate(CASES):
            fetches.update(build(tf, _raw, arrays, i, case))
        with tf.Session() as sess:
            ours = sess.run(fetches)
    theirs = run_tf_cases(python, "batch_norm_cases.py", tmp_path, arrays, CASES)
    assert sorted(theirs.files) == sorted(ours), "both sides computed the same values"
    for key, value in ours.items():
        expected = theirs[key]
        assert value.shape == expected.shape and value.dtype == expected.dtype, key
        # float32 sums in another order (we accumulate the statistics in double).
        np.testing.assert_allclose(value, expected, rtol=2e-4, atol=2e-5, err_msg=key)


def _x(shape=(2, 3, 3, 4)):
    return tf.constant(np.ones(shape, np.float32))


def test_fused_batch_norm_shapes_are_known_while_building():
    x = tf.placeholder(tf.float32, [None, 8, 8, 16])
    scale = tf.constant(np.ones(16, np.float32))
    y, mean, variance = tf.nn.fused_batch_norm(x, scale, scale)
    assert y.shape.as_list() == [None, 8, 8, 16]
    assert mean.shape.as_list() == [16] and variance.shape.as_list() == [16]
    nchw = tf.placeholder(tf.float32, [None, 16, 8, None])
    y, mean, _ = tf.nn.fused_batch_norm(nchw, scale, scale, data_format="NCHW")
    assert y.shape.as_list() == [None, 16, 8, None] and mean.shape.as_list() == [16]


def test_fused_batch_norm_errors_name_the_tensor():
    four, three = (tf.constant(np.ones(n, np.float32)) for n in (4, 3))
    # TensorFlow's messages for the same mistakes.
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="scale must have the same number of elements as the channels of x, got 3 and 4"):
        tf.nn.fused_batch_norm(_x(), three, four)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="When is_training=false, mean must have the same number of elements as the channels "
                             "of x, got 3 and 4"):
        tf.nn.fused_batch_norm(_x(), four, four, mean=three, variance=four, is_training=False)
    with pytest.raises(ValueError, match="Both `mean` and `variance` must be a 1D tensor"):
        tf.nn.fused_batch_norm(_x(), four, four, is_training=False)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"node .FusedBatchNormV3. \(FusedBatchNormV3\): input 0 must have rank 4 but has shape \[3,4\]"):
        _raw("FusedBatchNormV3", [("x", tf.constant(np.ones((3, 4), np.float32)))] + [("v", four)] * 4, {})
    # Shapes known only at run time reach the kernel, which checks the same.
    x = tf.placeholder(tf.float32, None)
    y, _, _ = tf.nn.fused_batch_norm(x, three, three)
    with tf.Session() as sess, pytest.raises(
            tf.errors.InvalidArgumentError,
            match="scale must have the same number of elements as the channels of x, got 3 and 4"):
        sess.run(y, {x: np.ones((1, 2, 2, 4), np.float32)})
