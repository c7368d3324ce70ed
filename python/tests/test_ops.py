"""Math, array, reduction, nn and random ops, each checked against NumPy."""
import numpy as np
import pytest

import tensorweave as tf

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((3, 4)).astype(np.float32)
POS = (RNG.random((3, 4)) + 0.5).astype(np.float32)


def close(actual, expected, tol=1e-5):
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("fn, ref", [
    (tf.add, np.add), (tf.subtract, np.subtract), (tf.multiply, np.multiply), (tf.divide, np.divide),
    (tf.truediv, np.divide), (tf.maximum, np.maximum), (tf.minimum, np.minimum),
    (tf.squared_difference, lambda a, b: (a - b) ** 2),
])
def test_binary_math(sess, fn, ref):
    close(sess.run(fn(A, B)), ref(A, B))


@pytest.mark.parametrize("fn, ref, x", [
    (tf.exp, np.exp, A), (tf.log, np.log, POS), (tf.square, np.square, A), (tf.sqrt, np.sqrt, POS),
    (tf.rsqrt, lambda v: 1 / np.sqrt(v), POS), (tf.abs, np.abs, A), (tf.negative, np.negative, A),
    (tf.tanh, np.tanh, A), (tf.sigmoid, lambda v: 1 / (1 + np.exp(-v)), A), (tf.sign, np.sign, A),
    (tf.reciprocal, np.reciprocal, POS), (tf.nn.relu, lambda v: np.maximum(v, 0), A),
    (tf.nn.sigmoid, lambda v: 1 / (1 + np.exp(-v)), A), (tf.nn.tanh, np.tanh, A),
])
def test_unary_math(sess, fn, ref, x):
    close(sess.run(fn(x)), ref(x))


def test_pow_and_comparisons(sess):
    close(sess.run(tf.pow(POS, 2.5)), POS ** 2.5)
    for fn, ref in [(tf.equal, np.equal), (tf.not_equal, np.not_equal), (tf.less, np.less),
                    (tf.less_equal, np.less_equal), (tf.greater, np.greater), (tf.greater_equal, np.greater_equal)]:
        out = sess.run(fn(A, B))
        assert out.dtype == np.bool_
        np.testing.assert_array_equal(out, ref(A, B))
    t, f = np.array([True, False, True]), np.array([True, True, False])
    np.testing.assert_array_equal(sess.run(tf.logical_and(t, f)), t & f)
    np.testing.assert_array_equal(sess.run(tf.logical_or(t, f)), t | f)
    np.testing.assert_array_equal(sess.run(tf.logical_not(t)), ~t)


def test_operators(sess):
    a, b = tf.constant(A), tf.constant(B)
    close(sess.run(a + b), A + B)
    close(sess.run(a - 1), A - 1)
    close(sess.run(2 - a), 2 - A)
    close(sess.run(a * b), A * B)
    close(sess.run(3 * a), 3 * A)
    close(sess.run(a / 2), A / 2)
    close(sess.run(1 / tf.constant(POS)), 1 / POS)
    close(sess.run(-a), -A)
    close(sess.run(abs(a)), np.abs(A))
    close(sess.run(tf.constant(POS) ** 2), POS ** 2)
    close(sess.run(a @ tf.transpose(b)), A @ B.T)
    np.testing.assert_array_equal(sess.run(a < b), A < B)
    np.testing.assert_array_equal(sess.run(a >= 0), A >= 0)
    np.testing.assert_array_equal(sess.run((a > 0) & (b > 0)), (A > 0) & (B > 0))
    np.testing.assert_array_equal(sess.run(~(a > 0) | (b > 0)), ~(A > 0) | (B > 0))
    close(sess.run(a[1]), A[1])
    close(sess.run(a[:, 1:3]), A[:, 1:3])
    close(sess.run(a[::2, -1]), A[::2, -1])


def test_integer_division_is_true_division(sess):
    assert sess.run(tf.constant(7) / 2) == 3.5
    assert sess.run(tf.div(tf.constant(7), 2)) == 3


def test_broadcasting_and_python_values_take_the_tensor_dtype(sess):
    x = tf.constant(A)
    y = x + [1, 2, 3, 4]
    assert y.dtype == tf.float32
    close(sess.run(y), A + np.array([1, 2, 3, 4], np.float32))
    assert (tf.constant(5, dtype=tf.int64) * 2).dtype == tf.int64


@pytest.mark.parametrize("fn, ref", [
    (tf.reduce_sum, np.sum), (tf.reduce_mean, np.mean), (tf.reduce_max, np.max), (tf.reduce_min, np.min),
    (tf.reduce_prod, np.prod),
])
def test_reductions(sess, fn, ref):
    close(sess.run(fn(A)), ref(A))
    close(sess.run(fn(A, axis=0)), ref(A, axis=0))
    close(sess.run(fn(A, axis=[1], keepdims=True)), ref(A, axis=1, keepdims=True))
    close(sess.run(fn(A, reduction_indices=1)), ref(A, axis=1))
    p = tf.placeholder(tf.float32)  # Unknown rank: all axes found at run time.
    close(sess.run(fn(p), {p: A}), ref(A))


def test_argmax_argmin_matmul(sess):
    np.testing.assert_array_equal(sess.run(tf.argmax(A, 1)), np.argmax(A, 1))
    np.testing.assert_array_equal(sess.run(tf.argmin(A, axis=0)), np.argmin(A, 0))
    assert sess.run(tf.argmax(A, 1)).dtype == np.int64
    close(sess.run(tf.matmul(A, B, transpose_b=True)), A @ B.T)
    close(sess.run(tf.matmul(A, B, transpose_a=True)), A.T @ B)
    batch = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    close(sess.run(tf.matmul(batch, np.transpose(batch, (0, 2, 1)))), batch @ np.transpose(batch, (0, 2, 1)))
    close(sess.run(tf.add_n([A, B, A])), A + B + A)
    close(sess.run(tf.where(A > 0, A, B)), np.where(A > 0, A, B))


def test_array_ops(sess):
    close(sess.run(tf.reshape(A, [4, 3])), A.reshape(4, 3))
    close(sess.run(tf.reshape(A, [-1])), A.ravel())
    np.testing.assert_array_equal(sess.run(tf.shape(A)), [3, 4])
    assert sess.run(tf.size(A)) == 12 and sess.run(tf.rank(A)) == 2
    close(sess.run(tf.slice(A, [1, 0], [2, -1])), A[1:, :])
    close(sess.run(tf.strided_slice(A, [0, 1], [3, 4], [2, 2])), A[0:3:2, 1:4:2])
    close(sess.run(tf.concat([A, B], 0)), np.concatenate([A, B], 0))
    close(sess.run(tf.concat([A, B], axis=1)), np.concatenate([A, B], 1))
    close(sess.run(tf.stack([A, B], axis=1)), np.stack([A, B], 1))
    parts = sess.run(tf.unstack(A))
    assert len(parts) == 3 and all(np.allclose(p, A[i]) for i, p in enumerate(parts))
    halves = sess.run(tf.split(A, 2, axis=1))
    close(halves[0], A[:, :2])
    close(halves[1], A[:, 2:])
    uneven = sess.run(tf.split(A, [1, 3], axis=1))
    close(uneven[1], A[:, 1:])
    close(sess.run(tf.transpose(A)), A.T)
    close(sess.run(tf.expand_dims(A, 0)), A[None])
    close(sess.run(tf.squeeze(tf.expand_dims(A, 2))), A)
    close(sess.run(tf.squeeze(tf.expand_dims(A, 0), axis=[0])), A)
    close(sess.run(tf.tile(A, [2, 1])), np.tile(A, (2, 1)))
    close(sess.run(tf.pad(A, [[1, 0], [0, 2]])), np.pad(A, [[1, 0], [0, 2]]))
    np.testing.assert_array_equal(sess.run(tf.range(5)), np.arange(5))
    np.testing.assert_array_equal(sess.run(tf.range(2, 11, 3)), np.arange(2, 11, 3))
    close(sess.run(tf.one_hot([0, 2], 3)), np.eye(3)[[0, 2]])
    close(sess.run(tf.identity(A)), A)
    close(sess.run(tf.broadcast_to([1.0, 2.0], [3, 2])), np.broadcast_to([1, 2], (3, 2)))


def test_constructors_and_casts(sess):
    close(sess.run(tf.zeros([2, 3])), np.zeros((2, 3)))
    close(sess.run(tf.ones([2], tf.int32)), [1, 1])
    assert sess.run(tf.ones([2], tf.int32)).dtype == np.int32
    close(sess.run(tf.fill([2, 2], 7.0)), np.full((2, 2), 7.0))
    close(sess.run(tf.zeros_like(A)), np.zeros_like(A))
    close(sess.run(tf.ones_like(A)), np.ones_like(A))
    cast = sess.run(tf.cast(tf.constant([1.7, -2.2]), tf.int32))
    np.testing.assert_array_equal(cast, [1, -2])
    assert cast.dtype == np.int32
    assert sess.run(tf.to_float(tf.constant(3))) == 3.0
    np.testing.assert_array_equal(sess.run(tf.constant(1.5, shape=[2, 2])), np.full((2, 2), 1.5, np.float32))
    assert tf.constant(1.5).dtype == tf.float32
    assert tf.constant(np.float64(1.5)).dtype == tf.float64
    assert tf.constant(3).dtype == tf.int32
    assert tf.constant(2 ** 40).dtype == tf.int64
    assert tf.constant([True]).dtype == tf.bool
    with pytest.raises(TypeError, match="Expected int32"):
        tf.constant(1.5, dtype=tf.int32)


def test_placeholder_with_default(sess):
    p = tf.placeholder_with_default(tf.constant([1.0, 2.0]), [2])
    close(sess.run(p), [1, 2])
    close(sess.run(p, {p: [3, 4]}), [3, 4])


def test_nn(sess):
    logits = A
    e = np.exp(logits - logits.max(1, keepdims=True))
    softmax = e / e.sum(1, keepdims=True)
    close(sess.run(tf.nn.softmax(logits)), softmax)
    close(sess.run(tf.nn.log_softmax(logits)), np.log(softmax))
    labels = np.eye(4, dtype=np.float32)[[0, 3, 1]]
    loss = sess.run(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    close(loss, -(labels * np.log(softmax)).sum(1))
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.softmax_cross_entropy_with_logits(labels, logits)
    bias = np.arange(4, dtype=np.float32)
    close(sess.run(tf.nn.bias_add(A, bias)), A + bias)
    close(sess.run(tf.nn.l2_loss(A)), (A ** 2).sum() / 2)


def test_random_ops_ranges_and_seeds():
    sess = tf.Session()
    u = sess.run(tf.random_uniform([1000], 2, 5))
    assert u.shape == (1000,) and u.dtype == np.float32
    assert u.min() >= 2 and u.max() < 5 and 3 < u.mean() < 4
    i = sess.run(tf.random_uniform([500], 0, 10, dtype=tf.int32))
    assert i.dtype == np.int32 and i.min() >= 0 and i.max() < 10
    n = sess.run(tf.random_normal([4000], mean=3, stddev=2))
    assert abs(n.mean() - 3) < 0.2 and abs(n.std() - 2) < 0.2
    t = sess.run(tf.truncated_normal([4000], stddev=1))
    assert np.abs(t).max() <= 2
    a = tf.random_uniform([5], seed=11)
    first, second = sess.run(a), sess.run(a)
    assert not np.array_equal(first, second)
    sess.close()
    tf.reset_default_graph()
    tf.set_random_seed(3)
    x = tf.random_uniform([5])
    with tf.Session() as s1:
        v1 = s1.run(x)
    tf.reset_default_graph()
    tf.set_random_seed(3)
    y = tf.random_uniform([5])
    with tf.Session() as s2:
        np.testing.assert_array_equal(s2.run(y), v1)
    with pytest.raises(ValueError, match="maxval"):
        tf.random_uniform([2], dtype=tf.int32)
