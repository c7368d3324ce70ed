"""tf.losses, tf.nn.sparse_softmax_cross_entropy_with_logits, tf.nn.dropout and tf.arg_min /
tf.arg_max: values against NumPy's formulas, gradients, and TF's errors."""
import numpy as np
import pytest

import tensorweave as tf


def _xent(logits, labels):
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -log_softmax[np.arange(len(labels)), labels]


def test_sparse_softmax_cross_entropy(sess):
    logits = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], np.float32)
    labels = np.array([1, 2], np.int64)
    per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    np.testing.assert_allclose(sess.run(per_example), _xent(logits, labels), rtol=1e-6)
    mean = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    np.testing.assert_allclose(sess.run(mean), _xent(logits, labels).mean(), rtol=1e-6)
    assert tf.losses.get_losses() == [mean]
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(logits, labels)
    with pytest.raises(ValueError, match="labels must be int32 or int64"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=logits[:, 0], logits=logits)


def test_losses_train_a_model(sess):
    w = tf.Variable(np.zeros([3, 4], np.float32))
    x = np.eye(3, dtype=np.float32)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=[0, 3, 2], logits=tf.matmul(x, w))
    train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    sess.run(tf.global_variables_initializer())
    first = sess.run(loss)
    np.testing.assert_allclose(first, np.log(4), rtol=1e-6)
    for _ in range(20):
        sess.run(train)
    assert sess.run(loss) < first / 4


def test_softmax_cross_entropy_and_mean_squared_error(sess):
    logits = np.array([[1.0, 2.0], [3.0, 0.0]], np.float32)
    onehot = np.array([[0.0, 1.0], [1.0, 0.0]], np.float32)
    np.testing.assert_allclose(sess.run(tf.losses.softmax_cross_entropy(onehot, logits)),
                               _xent(logits, np.array([1, 0])).mean(), rtol=1e-6)
    assert sess.run(tf.losses.mean_squared_error([1.0, 2.0], [2.0, 4.0])) == pytest.approx(2.5)
    # TensorFlow's default reduction: the weighted sum over the number of non-zero weights (1).
    assert sess.run(tf.losses.mean_squared_error([1.0, 2.0], [2.0, 4.0], weights=[2.0, 0.0])) == pytest.approx(2.0)


def test_dropout(sess):
    x = tf.ones([1000, 100])
    keep = tf.placeholder(tf.float32)
    dropped = tf.nn.dropout(x, keep)
    values = sess.run(dropped, {keep: 0.25})
    assert set(np.unique(values)) == {0.0, 4.0}  # Kept ones scaled by 1 / keep_prob.
    assert abs((values > 0).mean() - 0.25) < 0.01
    np.testing.assert_array_equal(sess.run(dropped, {keep: 1.0}), np.ones([1000, 100]))
    assert abs((sess.run(tf.nn.dropout(x, rate=0.75)) > 0).mean() - 0.25) < 0.01
    with pytest.raises(ValueError, match="keep_prob must be a scalar tensor or a float in the range"):
        tf.nn.dropout(x, 1.5)
    with pytest.raises(ValueError, match="exactly one of keep_prob or rate"):
        tf.nn.dropout(x)


def test_dropout_gradient_passes_the_kept_elements(sess):
    w = tf.Variable([1.0, 2.0, 3.0, 4.0])
    dropped = tf.nn.dropout(w, 0.5, seed=3)
    grad = tf.gradients(tf.reduce_sum(dropped), w)[0]
    sess.run(w.initializer)
    value, g = sess.run([dropped, grad])
    np.testing.assert_array_equal(g, np.where(value > 0, 2.0, 0.0))


def test_arg_min_and_arg_max(sess):
    v = [[3, 1, 2], [0, 5, 4]]
    np.testing.assert_array_equal(sess.run(tf.arg_min(v, 1)), [1, 0])
    np.testing.assert_array_equal(sess.run(tf.arg_max(v, 0)), [0, 1, 1])


def test_dropout_keeps_the_static_shape():
    # A layer after dropout reads its input's width, as TF's set_shape allows.
    hidden = tf.placeholder(tf.float32, [None, 64])
    keep = tf.placeholder(tf.float32)
    assert tf.nn.dropout(hidden, keep).shape.as_list() == [None, 64]
    assert tf.nn.dropout(tf.ones([3, 5]), 0.5).shape.as_list() == [3, 5]
    assert tf.nn.dropout(tf.placeholder(tf.float32, [None, None]), keep).shape.ndims in (None, 2)
