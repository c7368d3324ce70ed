"""tf.gradients, the optimizers (compute/apply/minimize, slots, global step) and Saver."""
import os

import numpy as np
import pytest

import tensorweave as tf


def test_gradients_match_numpy(sess):
    x = tf.placeholder(tf.float32, [3])
    w = tf.Variable([1.0, 2.0, 3.0])
    y = tf.reduce_sum(tf.square(x * w))
    gx, gw = tf.gradients(y, [x, w])
    values = np.array([0.5, -1.0, 2.0], np.float32)
    sess.run(tf.global_variables_initializer())
    wv = np.array([1, 2, 3], np.float32)
    np.testing.assert_allclose(sess.run(gx, {x: values}), 2 * values * wv * wv, rtol=1e-6)
    np.testing.assert_allclose(sess.run(gw, {x: values}), 2 * values * values * wv, rtol=1e-6)
    unrelated = tf.constant(1.0)
    assert tf.gradients(y, [unrelated]) == [None]
    weighted = tf.gradients(tf.exp(x), x, grad_ys=[np.array([1, 2, 3], np.float32)])[0]
    np.testing.assert_allclose(sess.run(weighted, {x: values}), np.exp(values) * [1, 2, 3], rtol=1e-6)


def _quadratic():
    w = tf.Variable([1.0, -2.0], name="w")
    loss = tf.reduce_sum(tf.square(w))  # d/dw = 2w
    return w, loss


def test_gradient_descent_minimize_with_global_step(sess):
    w, loss = _quadratic()
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    sess.run(tf.global_variables_initializer())
    sess.run(train)
    np.testing.assert_allclose(sess.run(w), np.array([1, -2]) * (1 - 0.2), rtol=1e-6)
    assert sess.run(step) == 1
    assert tf.train.get_global_step() == step


def test_compute_and_apply_gradients(sess):
    w, loss = _quadratic()
    unused = tf.Variable(5.0, name="unused")
    opt = tf.train.GradientDescentOptimizer(learning_rate=0.5)
    grads_and_vars = opt.compute_gradients(loss)
    assert [v.name for _, v in grads_and_vars] == ["w:0", "unused:0"]
    assert grads_and_vars[1][0] is None
    averaged = [((g + g) / 2, v) for g, v in grads_and_vars if g is not None]
    train = opt.apply_gradients(averaged)
    sess.run(tf.global_variables_initializer())
    sess.run(train)
    np.testing.assert_allclose(sess.run(w), [0, 0], atol=1e-7)
    assert sess.run(unused) == 5.0


@pytest.mark.parametrize("make, update", [
    (lambda: tf.train.MomentumOptimizer(0.1, 0.9), lambda w, g: w - 0.1 * g),
    (lambda: tf.train.AdagradOptimizer(0.1), lambda w, g: w - 0.1 * g / np.sqrt(0.1 + g * g)),
    (lambda: tf.train.RMSPropOptimizer(0.1), lambda w, g: w - 0.1 * g / np.sqrt(0.9 + 0.1 * g * g + 1e-10)),
    (lambda: tf.train.AdamOptimizer(0.1), lambda w, g: w - 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9)
     * (0.1 * g) / (np.sqrt(0.001 * g * g) + 1e-8)),
])
def test_optimizers_first_step(sess, make, update):
    w, loss = _quadratic()
    opt = make()
    train = opt.minimize(loss)
    sess.run(tf.global_variables_initializer())
    sess.run(train)
    w0 = np.array([1.0, -2.0])
    np.testing.assert_allclose(sess.run(w), update(w0, 2 * w0), rtol=1e-5)
    assert opt.get_slot_names() == sorted(opt.get_slot_names())
    for name in opt.get_slot_names():
        assert opt.get_slot(w, name).shape.as_list() == [2]


def test_learning_rate_tensor(sess):
    w, loss = _quadratic()
    lr = tf.placeholder(tf.float32, [])
    train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
    sess.run(tf.global_variables_initializer())
    sess.run(train, {lr: 0.25})
    np.testing.assert_allclose(sess.run(w), [0.5, -1.0])


def test_exp_fit_converges(sess):
    """Seed 003's network: 1 -> 16 -> 1 learning y = e^x."""
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 1])
    y = tf.placeholder(tf.float32, [None, 1])
    w1 = tf.get_variable("W1", [1, 16], initializer=tf.random_uniform_initializer(0, 1))
    b1 = tf.get_variable("b1", [16], initializer=tf.zeros_initializer())
    w2 = tf.get_variable("W2", [16, 1], initializer=tf.random_uniform_initializer(0, 1))
    b2 = tf.get_variable("b2", [1], initializer=tf.zeros_initializer())
    out = tf.matmul(tf.nn.sigmoid(tf.matmul(x, w1) + b1), w2) + b2
    loss = tf.reduce_mean(tf.square(out - y))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    sess.run(tf.global_variables_initializer())
    xs = np.linspace(-1, 1, 64, dtype=np.float32).reshape(-1, 1)
    first = sess.run(loss, {x: xs, y: np.exp(xs)})
    for _ in range(500):
        sess.run(train, {x: xs, y: np.exp(xs)})
    last = sess.run(loss, {x: xs, y: np.exp(xs)})
    assert last < 1e-2 < first


def test_saver_round_trip(tmp_path, sess):
    v = tf.Variable([1.0, 2.0], name="v")
    step = tf.train.get_or_create_global_step()
    saver = tf.train.Saver(max_to_keep=2)
    sess.run(tf.global_variables_initializer())
    prefix = str(tmp_path / "model")
    paths = [saver.save(sess, prefix, global_step=i) for i in range(3)]
    assert paths[-1] == prefix + "-2"
    assert saver.last_checkpoints == paths[1:]
    assert not os.path.exists(paths[0] + ".index") and not os.path.exists(paths[0])
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[-1]
    sess.run(v.assign([7.0, 8.0]))
    saver.restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
    np.testing.assert_array_equal(sess.run(v), [1, 2])
    assert saver.save(sess, prefix, global_step=step) == prefix + "-0"
    only_v = tf.train.Saver([v])
    only_v.save(sess, str(tmp_path / "v_only"))
    with pytest.raises(tf.errors.NotFoundError):
        saver.restore(sess, str(tmp_path / "missing"))
    assert tf.train.latest_checkpoint(str(tmp_path / "nowhere")) is None


def test_saver_with_a_dict_saves_under_the_given_names(tmp_path, sess):
    a = tf.Variable([1.0, 2.0], name="a")
    b = tf.Variable(3, name="b")
    sess.run(tf.global_variables_initializer())
    path = tf.train.Saver({"model/w": a, "model/step": b}).save(sess, str(tmp_path / "named"))
    # Another graph, other variable names: restored by the names in the dict.
    with tf.Graph().as_default():
        w = tf.Variable([0.0, 0.0], name="weights")
        step = tf.Variable(0, name="step")
        with tf.Session() as other:
            tf.train.Saver({"model/w": w, "model/step": step}).restore(other, path)
            np.testing.assert_array_equal(other.run(w), [1.0, 2.0])
            assert other.run(step) == 3
            with pytest.raises(tf.errors.NotFoundError, match="weights"):
                tf.train.Saver([w]).restore(other, path)  # Saved as model/w, not weights.
            with pytest.raises(TypeError, match="not a tf.Variable"):
                tf.train.Saver({"x": 1.0})
