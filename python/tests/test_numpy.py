"""NumPy in and out: dtypes, scalars, and large feeds/fetches crossing without a copy."""
import numpy as np
import pytest

import tensorweave as tf
from tensorweave import _core


def _address(array):
    return array.__array_interface__["data"][0]


def _aligned(shape, dtype=np.float32, alignment=64):
    """A C-contiguous array whose data starts on an `alignment`-byte boundary."""
    count = int(np.prod(shape))
    raw = np.empty(count * np.dtype(dtype).itemsize + alignment, dtype=np.uint8)
    offset = (-_address(raw)) % alignment
    return raw[offset:offset + count * np.dtype(dtype).itemsize].view(dtype).reshape(shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_every_dtype_round_trips(dtype):
    values = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    out = _core._round_trip(values)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, values)
    np.testing.assert_array_equal(_core._round_trip(values[:, ::2]), values[:, ::2])  # Strided: copied.


def test_unsupported_numpy_dtype_is_type_error():
    with pytest.raises(TypeError, match="no tensorweave equivalent"):
        _core._round_trip(np.zeros(3, np.uint32))
    with pytest.raises(TypeError):
        tf.constant(np.zeros(2, np.datetime64))


def test_scalars_come_back_as_numpy_scalars(sess):
    for value, dtype in [(1.5, np.float32), (3, np.int32), (True, np.bool_)]:
        out = sess.run(tf.constant(value))
        assert isinstance(out, np.generic) and out.dtype == dtype and out == value
    empty = sess.run(tf.zeros([0, 3]))
    assert empty.shape == (0, 3)


def test_large_fetch_shares_the_tensor_buffer(sess):
    big = tf.random_uniform([2048, 1024]) * 2  # 8 MiB, made by the step.
    out = sess.run(big)
    assert out.shape == (2048, 1024) and out.dtype == np.float32
    assert not out.flags.owndata  # Backed by the tensor's buffer, not a NumPy copy.
    assert 0 <= out.min() and out.max() < 2
    out[0, 0] = 5.0  # Writable, and owned by this array alone.
    assert out[0, 0] == 5.0


def test_large_aligned_feed_and_fetch_cross_without_a_copy(sess):
    p = tf.placeholder(tf.float32, [4096, 1024])
    same = tf.identity(p)
    values = _aligned((4096, 1024))
    values[...] = np.arange(values.size, dtype=np.float32).reshape(values.shape)
    out = sess.run(same, {p: values})
    np.testing.assert_array_equal(out, values)
    assert _address(out) == _address(values)  # Fed and fetched in place: no copy either way.
    total = sess.run(tf.reduce_sum(p), {p: values})
    np.testing.assert_allclose(total, values.astype(np.float64).sum(), rtol=1e-4)


def test_fetches_never_alias_variables(sess):
    v = tf.Variable(np.ones((256, 256), np.float32))
    sess.run(v.initializer)
    first = sess.run(v)
    first[...] = 7
    np.testing.assert_array_equal(sess.run(v), np.ones((256, 256), np.float32))


def test_feeding_an_array_does_not_let_the_graph_change_it(sess):
    p = tf.placeholder(tf.float32, [1024])
    v = tf.Variable(np.zeros(1024, np.float32))
    sess.run(v.initializer)
    values = _aligned((1024,))
    values[...] = 1
    sess.run(v.assign(p), {p: values})
    sess.run(v.assign_add(np.ones(1024, np.float32)))
    np.testing.assert_array_equal(values, np.ones(1024, np.float32))
    np.testing.assert_array_equal(sess.run(v), np.full(1024, 2, np.float32))
