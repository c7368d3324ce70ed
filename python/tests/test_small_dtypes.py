"""int8, uint8, int16, uint16 and float16 (half) from Python: dtype objects, NumPy arrays
in and out (feeds, fetches, constants), tf.cast, and a few kernels. TensorFlow's own answers
for the kernels are in test_tf_oracle_ops.py."""
import numpy as np
import pytest

import tensorweave as tf
from tensorweave import _core

SMALL = [(tf.int8, np.int8), (tf.uint8, np.uint8), (tf.int16, np.int16), (tf.uint16, np.uint16),
         (tf.float16, np.float16)]


@pytest.mark.parametrize("dtype,np_type", SMALL)
def test_dtype_objects(dtype, np_type):
    assert tf.as_dtype(np_type) == dtype
    assert tf.as_dtype(dtype.name) == dtype
    assert dtype.as_numpy_dtype == np_type
    assert dtype.is_floating == (np_type == np.float16)
    assert dtype.is_integer == (np_type != np.float16)


def test_tensorflow_names():
    assert [d.name for d, _ in SMALL] == ["int8", "uint8", "int16", "uint16", "float16"]
    assert tf.half == tf.float16 and tf.as_dtype("half") == tf.float16
    assert repr(tf.half) == "tf.float16"


@pytest.mark.parametrize("np_type", [t for _, t in SMALL])
def test_arrays_round_trip_bit_exact(np_type):
    info = np.finfo(np_type) if np_type == np.float16 else np.iinfo(np_type)
    values = np.array([info.min, 0, 1, info.max], np_type).reshape(2, 2)
    if np_type == np.float16:
        values = np.array([[-np.inf, np.nan], [6e-8, -0.0]], np.float16)
    for array in (values, values[:, ::-1]):  # contiguous (no copy) and strided (copied)
        out = _core._round_trip(array)
        assert out.dtype == np_type and out.shape == array.shape
        np.testing.assert_array_equal(out.view(f"u{out.itemsize}"), array.view(f"u{out.itemsize}"))


@pytest.mark.parametrize("dtype,np_type", SMALL)
def test_feed_and_fetch(sess, dtype, np_type):
    x = tf.placeholder(dtype, shape=[None])
    y = tf.identity(x)
    value = np.array([1, 2, 3], np_type)
    out = sess.run(y, feed_dict={x: value})
    assert out.dtype == np_type
    np.testing.assert_array_equal(out, value)
    scalar = sess.run(tf.constant(np_type(7)))
    assert isinstance(scalar, np.generic) and scalar.dtype == np_type and scalar == 7


def test_feeds_convert_to_the_placeholders_dtype_within_a_kind(sess):
    # As TensorFlow's session: the values are converted to the placeholder's dtype.
    x = tf.placeholder(tf.int8, shape=[2])
    out = sess.run(x, feed_dict={x: np.array([3, 300], np.int16)})
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, np.array([3, 300], np.int16).astype(np.int8))
    with pytest.raises(TypeError, match="int8"):
        sess.run(x, feed_dict={x: np.zeros(2, np.float16)})


def test_casts(sess):
    f = tf.constant(np.array([2049.0, 0.3, -2.75, 70000.0], np.float32))
    h = tf.cast(f, tf.float16)
    assert h.dtype == tf.float16
    np.testing.assert_array_equal(sess.run(h), np.array([2048.0, 0.3, -2.75, np.inf], np.float16))
    finite = tf.constant(np.array([2048.0, 0.3, -2.75], np.float16))
    np.testing.assert_array_equal(sess.run(tf.cast(finite, tf.int16)), np.array([2048, 0, -2], np.int16))
    wide = tf.constant(np.array([40000, 255, 0], np.uint16))
    np.testing.assert_array_equal(sess.run(tf.cast(wide, tf.int8)), np.array([64, -1, 0], np.int8))
    np.testing.assert_array_equal(sess.run(tf.cast(tf.constant(np.int8(-1)), tf.uint8)), np.uint8(255))


def test_integer_arithmetic_wraps_and_half_rounds(sess):
    a = tf.constant(np.array([127, -128], np.int8))
    np.testing.assert_array_equal(sess.run(a + tf.constant(np.int8(1))), np.array([-128, -127], np.int8))
    np.testing.assert_array_equal(sess.run(tf.reduce_sum(tf.constant(np.array([200, 100], np.uint8)))), np.uint8(44))
    h = tf.constant(np.array([2048, 0.1], np.float16))
    out = sess.run(h + tf.constant(np.array([1, 0.2], np.float16)))
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, (np.array([2048, 0.1], np.float16).astype(np.float32)
                                        + np.array([1, 0.2], np.float16).astype(np.float32)).astype(np.float16))
    m = sess.run(tf.matmul(tf.constant(np.eye(2, dtype=np.float16)), tf.constant(np.array([[1, 2], [3, 4]], np.float16))))
    assert m.dtype == np.float16
    np.testing.assert_array_equal(m, np.array([[1, 2], [3, 4]], np.float16))


def test_small_dtypes_cross_tasks_intact():
    # Fed through the master on task 0, computed on task 1, fetched back: every tensor
    # crosses the wire both ways (tensor_wire's chunks for the 1.5 MiB one).
    from conftest import ServerProcesses, free_port
    addresses = ["localhost:%d" % free_port(), "localhost:%d" % free_port()]
    servers = ServerProcesses("local|" + ";".join(addresses), "local", 2)
    try:
        rng = np.random.default_rng(7)
        feeds, fetches, expected = {}, [], []
        for dtype, np_type in SMALL:
            n = 1536 * 1024 if np_type == np.int8 else 1000
            value = rng.integers(0, 100, n).astype(np_type)
            x = tf.placeholder(dtype, [n])
            with tf.device("/job:local/task:1"):
                fetches.append(tf.identity(x) if np_type == np.uint16 else x + x)
            feeds[x] = value
            expected.append(value if np_type == np.uint16 else value + value)  # NumPy wraps too
        with tf.Session("grpc://" + addresses[0]) as sess:
            for got, want in zip(sess.run(fetches, feeds), expected):
                assert got.dtype == want.dtype
                np.testing.assert_array_equal(got, want)
    finally:
        servers.stop()


def test_tensorflow_graphdef_with_small_dtype_constants(tmp_path):
    from tf_peer import require_tensorflow, run_tf_script
    python = require_tensorflow("test_tensorflow_graphdef_with_small_dtype_constants")
    run_tf_script(python, "small_dtype_graphdef.py", str(tmp_path / "g"))
    expected = np.load(tmp_path / "g.npz")
    g = tf.Graph()
    with open(tmp_path / "g.pb", "rb") as f:
        g.import_graph_def(f.read())
    with tf.Session(graph=g) as sess:
        for name in expected.files:
            got = sess.run(g.get_tensor_by_name(name + ":0"))
            assert got.dtype == expected[name].dtype, name
            np.testing.assert_array_equal(got, expected[name], err_msg=name)
