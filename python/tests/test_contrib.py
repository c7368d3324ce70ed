"""tf.contrib: the aliases TF 1.x programs use, and a clear error for the rest."""
import numpy as np
import pytest

import tensorweave as tf


def test_framework_and_layers_aliases():
    step = tf.contrib.framework.get_or_create_global_step()
    assert tf.contrib.framework.get_global_step() is not None
    w = tf.get_variable("w", [2, 2], initializer=tf.contrib.layers.xavier_initializer(seed=1))
    assert tf.contrib.framework.get_variables() == tf.global_variables()
    reg = tf.contrib.layers.l2_regularizer(0.5)(w)
    l1 = tf.contrib.layers.l1_regularizer(2.0)(w)
    assert tf.contrib.layers.l2_regularizer(0.0)(w) is None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        wv, rv, lv, sv = sess.run([w, reg, l1, step])
    np.testing.assert_allclose(rv, 0.5 * 0.5 * np.sum(wv ** 2), rtol=1e-6)
    np.testing.assert_allclose(lv, 2.0 * np.sum(np.abs(wv)), rtol=1e-6)
    assert sv == 0
    limit = np.sqrt(6.0 / (2 + 2))  # glorot uniform
    assert np.all(np.abs(wv) <= limit)
    with pytest.raises(ValueError, match="scale must be >= 0"):
        tf.contrib.layers.l2_regularizer(-1.0)


def test_missing_contrib_names_say_so():
    with pytest.raises(AttributeError, match=r"tf.contrib.seq2seq is not in tensorweave yet"):
        tf.contrib.seq2seq
    with pytest.raises(AttributeError, match=r"tf.contrib.rnn.NASCell is not in tensorweave yet"):
        tf.contrib.rnn.NASCell
    with pytest.raises(AttributeError, match=r"tf.contrib.layers.fully_connected is not in tensorweave yet"):
        tf.contrib.layers.fully_connected


def test_is_variable_initialized():
    v = tf.Variable(3.0)
    ready = tf.is_variable_initialized(v)
    with tf.Session() as sess:
        assert not sess.run(ready)
        sess.run(v.initializer)
        assert sess.run(ready)
