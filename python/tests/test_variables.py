"""Variables, get_variable and variable scopes, initializers, collections, name and device
scopes, control dependencies."""
import numpy as np
import pytest

import tensorweave as tf


def test_variable_assign_and_initializer(sess):
    v = tf.Variable([1.0, 2.0], name="v")
    assert v.name == "v:0" and v.op.name == "v" and v.shape.as_list() == [2] and v.dtype == tf.float32
    sess.run(tf.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(v), [1, 2])
    np.testing.assert_array_equal(sess.run(v.assign([5.0, 6.0])), [5, 6])
    np.testing.assert_array_equal(sess.run(v.assign_add([1.0, 1.0])), [6, 7])
    np.testing.assert_array_equal(sess.run(v.assign_sub([2.0, 2.0])), [4, 5])
    np.testing.assert_array_equal(sess.run(v + 1), [5, 6])
    assert sess.run(v.is_initialized())
    np.testing.assert_array_equal(sess.run(v.initial_value), [1, 2])


def test_uninitialized_variable_is_failed_precondition(sess):
    v = tf.Variable(3.0, name="never_set")
    with pytest.raises(tf.errors.FailedPreconditionError, match="never_set") as info:
        sess.run(v.read_value())
    assert info.value.error_code == tf.errors.FAILED_PRECONDITION


def test_variables_from_initializers(sess):
    w = tf.Variable(tf.random_uniform([3, 4], -1, 1), name="w")
    z = tf.Variable(tf.zeros([2]), trainable=False)
    sess.run(tf.global_variables_initializer())
    value = sess.run(w)
    assert value.shape == (3, 4) and np.all(np.abs(value) <= 1)
    assert [v.name for v in tf.global_variables()] == ["w:0", "Variable:0"]
    assert [v.name for v in tf.trainable_variables()] == ["w:0"]
    assert tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES) == [w]
    sess.run(tf.variables_initializer([z]))
    np.testing.assert_array_equal(sess.run(z), [0, 0])


def test_get_variable_and_reuse(sess):
    with tf.variable_scope("layer"):
        w = tf.get_variable("W1", shape=[1, 16], initializer=tf.random_uniform_initializer(0, 1))
        b = tf.get_variable("b", [16], initializer=tf.constant_initializer(0.5))
    assert w.name == "layer/W1:0" and b.name == "layer/b:0"
    with tf.variable_scope("layer", reuse=True) as scope:
        assert scope.reuse is True and scope.name == "layer"
        same = tf.get_variable("W1", shape=[1, 16])
    assert same == w
    with pytest.raises(ValueError, match="layer/W1"):
        with tf.variable_scope("layer"):
            tf.get_variable("W1", shape=[1, 16])
    with pytest.raises(ValueError, match="shape"):
        with tf.variable_scope("layer", reuse=True):
            tf.get_variable("W1", shape=[2, 16])
    with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
        a1 = tf.get_variable("a", [2], initializer=tf.ones_initializer())
    with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
        a2 = tf.get_variable("a", [2])
    assert a1 == a2
    sess.run(tf.global_variables_initializer())
    values = sess.run(w)
    assert values.shape == (1, 16) and values.min() >= 0 and values.max() < 1
    np.testing.assert_array_equal(sess.run(b), np.full(16, 0.5, np.float32))
    np.testing.assert_array_equal(sess.run(a1), [1, 1])


def test_get_variable_initializer_kinds(sess):
    c = tf.get_variable("from_value", initializer=tf.constant([1.0, 2.0, 3.0]))
    d = tf.get_variable("from_list", [2, 2], initializer=tf.constant_initializer([1, 2, 3, 4]))
    e = tf.get_variable("from_callable", [3], initializer=lambda shape, dtype: tf.fill(shape, 9.0))
    f = tf.get_variable("normal", [2000], initializer=tf.random_normal_initializer(1.0, 0.5, seed=1))
    g = tf.get_variable("glorot", [10, 20], initializer=tf.glorot_uniform_initializer())
    h = tf.get_variable("trunc", [1000], initializer=tf.truncated_normal_initializer(stddev=0.1))
    i = tf.get_variable("zeros", [2], dtype=tf.int32, initializer=tf.zeros_initializer())
    sess.run(tf.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(c), [1, 2, 3])
    np.testing.assert_array_equal(sess.run(d), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(sess.run(e), [9, 9, 9])
    assert abs(sess.run(f).mean() - 1) < 0.1
    assert np.abs(sess.run(g)).max() <= np.sqrt(6 / 30)
    assert np.abs(sess.run(h)).max() <= 0.2
    np.testing.assert_array_equal(sess.run(i), [0, 0])
    assert tf.random_uniform_initializer(0, 1)([2, 2]).shape.as_list() == [2, 2]


def test_collections():
    x = tf.placeholder(tf.float32, name="x")
    tf.add_to_collection("x", x)
    tf.add_to_collections(["x", "y"], 3)
    assert tf.get_collection("x")[0] == x
    assert tf.get_collection("x")[1] == 3 and tf.get_collection("y") == [3]
    assert tf.get_collection("missing") == []
    tf.get_collection_ref("z").append(1)
    assert tf.get_collection("z") == [1]


def test_name_scope_and_device_scope():
    with tf.name_scope("outer") as outer:
        assert outer == "outer/"
        with tf.name_scope("inner") as inner:
            c = tf.constant(1, name="c")
            assert inner == "outer/inner/"
    assert c.op.name == "outer/inner/c" and c.name == "outer/inner/c:0"
    with tf.device("/job:ps/task:0"):
        a = tf.constant(1)
        with tf.device("/cpu:0"):
            b = tf.constant(2)
    assert a.device == "/job:ps/task:0"
    assert b.device == "/job:ps/task:0/device:CPU:0"


def test_device_function_sees_the_op():
    seen = []

    def place(op):
        seen.append((op.type, op.name))
        return "/job:ps/task:0" if op.type == "VarHandleOp" else None

    with tf.device(place):
        v = tf.Variable(1.0, name="var")
        c = tf.constant(2.0, name="two")
    assert v.device == "/job:ps/task:0"
    assert c.device == ""
    assert ("Const", "two") in seen


def test_control_dependencies_order_runs(sess):
    v = tf.Variable(0, name="v")
    sess.run(v.initializer)
    inc = v.assign_add(1, read_value=False)
    with tf.control_dependencies([inc]):
        after = v.read_value()
    assert inc in after.op.control_inputs
    assert sess.run(after) == 1
    assert sess.run(after) == 2


def test_group_runs_all(sess):
    a = tf.Variable(0)
    b = tf.Variable(0)
    sess.run(tf.global_variables_initializer())
    sess.run(tf.group(a.assign_add(1), b.assign_add(2)))
    assert sess.run([a, b]) == [1, 2]


def test_repeated_name_scope_gets_a_fresh_name():
    with tf.name_scope("a") as first:
        c1 = tf.constant(1, name="c")
    with tf.name_scope("a") as second:
        c2 = tf.constant(1, name="c")
        with tf.name_scope("a") as nested:
            pass
    tf.constant(0, name="b")
    with tf.name_scope("b") as taken_by_op:
        pass
    with tf.name_scope("a/") as reentered:
        c3 = tf.constant(1, name="c")
    assert (first, second, nested, taken_by_op, reentered) == ("a/", "a_1/", "a_1/a/", "b_1/", "a/")
    assert (c1.name, c2.name, c3.name) == ("a/c:0", "a_1/c:0", "a/c_1:0")


def test_variable_scope_initializer_is_the_default_of_get_variable(sess):
    with tf.variable_scope("s", initializer=tf.constant_initializer(3.0)) as scope:
        v = tf.get_variable("v", [2])
        with tf.variable_scope("inner"):
            inherited = tf.get_variable("w", [1])
        own = tf.get_variable("z", [1], initializer=tf.zeros_initializer())
    plain = tf.get_variable("plain", [1], initializer=tf.ones_initializer())
    sess.run(tf.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(v), [3.0, 3.0])
    np.testing.assert_array_equal(sess.run(inherited), [3.0])
    np.testing.assert_array_equal(sess.run(own), [0.0])
    np.testing.assert_array_equal(sess.run(plain), [1.0])
    assert v.name == "s/v:0" and inherited.name == "s/inner/w:0"


def test_reuse_variables_shares_the_scope_variables():
    with tf.variable_scope("tower"):
        a = tf.get_variable("a", [1])
        with pytest.raises(ValueError, match="already exists"):
            tf.get_variable("a", [1])
        tf.get_variable_scope().reuse_variables()
        assert tf.get_variable_scope().reuse is True
        assert tf.get_variable("a", [1]) is not None
        assert tf.get_variable("a", [1]).name == a.name
        with pytest.raises(ValueError, match="does not exist"):
            tf.get_variable("b", [1])
    with tf.variable_scope("tower"):  # Reuse ended with the scope.
        assert tf.get_variable_scope().reuse is False
    with pytest.raises(tf.errors.FailedPreconditionError, match="needs an open variable_scope"):
        tf.get_variable_scope().reuse_variables()


def test_variable_reads_have_the_declared_shape(sess):
    # As TF: the shape flows from the variable to what is computed from it, so programs
    # can size layers from it (conv filters, flattening) before running anything.
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.get_variable("w_shape", [3, 4])
    b = tf.Variable(tf.zeros([4]))
    y = tf.matmul(x, w) + b
    assert w.value().shape.as_list() == [3, 4] and tf.identity(w).shape.as_list() == [3, 4]
    assert y.shape.as_list() == [None, 4]
    unknown = tf.Variable(tf.placeholder_with_default([1.0, 2.0], [None]), validate_shape=False)
    assert unknown.value().shape.as_list() == [None]
    sess.run(tf.global_variables_initializer())
    assert sess.run(y, {x: np.ones((2, 3), np.float32)}).shape == (2, 4)
