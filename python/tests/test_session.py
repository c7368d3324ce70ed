"""tf.Session, feeds, fetches (nested structures, names, ops), eval/run, ConfigProto, graphs."""
import numpy as np
import pytest

import tensorweave as tf


def test_238_graph(sess):
    x = tf.constant(2)
    y = (x + 300) + (x - 66)
    result = sess.run(y)
    assert result == 238
    assert isinstance(result, np.int32)


def test_placeholder_mean_matches_numpy(sess):
    x = tf.placeholder(tf.float32, 100)
    mean = tf.reduce_mean(x)
    values = np.random.random(100)
    np.testing.assert_allclose(sess.run(mean, feed_dict={x: values}), values.mean(), rtol=1e-5)
    assert x.shape.as_list() == [100]


def test_nested_fetches_keep_their_structure(sess):
    a = tf.constant([1.0, 2.0])
    b = a * 3
    init = tf.no_op()
    result = sess.run({"a": a, "pair": (b, [a, init]), "by_name": b.name})
    np.testing.assert_array_equal(result["a"], [1, 2])
    np.testing.assert_array_equal(result["pair"][0], [3, 6])
    assert isinstance(result["pair"], tuple) and isinstance(result["pair"][1], list)
    assert result["pair"][1][1] is None
    np.testing.assert_array_equal(result["by_name"], [3, 6])
    assert sess.run([]) == []


def test_fetch_by_op_name_runs_it(sess):
    v = tf.Variable(1, name="counter")
    inc = v.assign_add(5, read_value=False)
    sess.run(v.initializer.name)
    assert sess.run(inc.name) is None
    assert sess.run("counter/read:0") == 6


def test_feeds_accept_scalars_lists_and_arrays(sess):
    p = tf.placeholder(tf.float32, [None, 2])
    s = tf.reduce_sum(p, axis=1)
    np.testing.assert_allclose(sess.run(s, {p: [[1, 2], [3, 4.5]]}), [3, 7.5])
    np.testing.assert_allclose(sess.run(s, {p: np.ones((3, 2), np.float64)}), [2, 2, 2])
    q = tf.placeholder(tf.int64, [])
    assert sess.run(q * 2, {q: 21}) == 42
    assert sess.run(q * 2, {q.name: 4}) == 8


def test_feed_dtype_and_shape_are_checked(sess):
    p = tf.placeholder(tf.int32, [2])
    with pytest.raises(TypeError, match="dtype int32"):
        sess.run(p, {p: [1.5, 2.5]})
    with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\)"):
        sess.run(p, {p: [1, 2, 3]})
    with pytest.raises(TypeError, match="cannot be a tf.Tensor"):
        sess.run(p, {p: tf.constant([1, 2])})


def test_unfed_placeholder_is_invalid_argument(sess):
    p = tf.placeholder(tf.float32, [2], name="needs_feed")
    with pytest.raises(tf.errors.InvalidArgumentError, match="needs_feed"):
        sess.run(p * 2)


def test_eval_and_run_use_the_default_session():
    v = tf.Variable([1.0, 2.0])
    doubled = v * 2
    with tf.Session():
        v.initializer.run()
        np.testing.assert_array_equal(doubled.eval(), [2, 4])
        np.testing.assert_array_equal(v.eval(), [1, 2])
    with pytest.raises(ValueError, match="No default session"):
        doubled.eval()


def test_session_as_default_and_explicit_session():
    c = tf.constant(5)
    sess = tf.Session()
    with sess.as_default():
        assert c.eval() == 5
    assert c.eval(session=sess) == 5
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(c)


def test_graphs_are_separate():
    g = tf.Graph()
    with g.as_default():
        assert tf.get_default_graph() is g
        c = tf.constant(3, name="c")
    assert tf.get_default_graph() is not g
    assert c.graph is g
    with tf.Session(graph=g) as sess:
        assert sess.run("c:0") == 3
    with tf.Session() as other:
        with pytest.raises(ValueError, match="not an element of this graph"):
            other.run(c)
    assert len(g.get_operations()) == 1
    assert g.get_tensor_by_name("c:0") == c


def test_reset_default_graph_gives_a_new_graph():
    g1 = tf.get_default_graph()
    tf.constant(1)
    tf.reset_default_graph()
    assert tf.get_default_graph() is not g1
    assert tf.get_default_graph().get_operations() == []


def test_config_proto_log_device_placement(capfd):
    c = tf.constant(1.0, name="placed") + 1
    config = tf.ConfigProto(log_device_placement=True, allow_soft_placement=True, device_count={"CPU": 2})
    with tf.Session(config=config) as sess:
        assert sess.run(c) == 2.0
        assert any("CPU:1" in d for d in sess.list_devices())
    assert "placed" in capfd.readouterr().err


def test_interactive_session_is_default():
    c = tf.constant(7)
    sess = tf.InteractiveSession()
    try:
        assert c.eval() == 7
    finally:
        sess.close()
    assert tf.get_default_session() is None
