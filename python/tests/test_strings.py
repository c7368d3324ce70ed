"""String tensors from Python: feeds of bytes, str, lists and NumPy arrays (object, bytes_,
str_), fetches as TF 1.x's Session returns them (bytes; object arrays of bytes), the ops
TensorFlow registers for strings, report_uninitialized_variables and
assert_variables_initialized; the same cases run in real TensorFlow must give the same."""
import ast
import os
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script

sys.path.insert(0, TF_SIDE_DIR)
import string_cases  # noqa: E402

LONG = string_cases.LONG


def test_scalar_fetch_is_bytes_and_arrays_are_object_arrays_of_bytes():
    with tf.Session() as sess:
        assert sess.run(tf.constant("abc")) == b"abc"
        assert type(sess.run(tf.constant(b"\x00\xff"))) is bytes
        got = sess.run(tf.constant([["a", LONG]]))
        assert got.dtype == object and got.shape == (1, 2)
        assert got.tolist() == [[b"a", LONG.encode("utf-8")]]
    assert tf.constant("x").dtype == tf.string
    assert tf.string.name == "string" and tf.as_dtype("string") == tf.string
    assert tf.as_dtype(np.object_) == tf.string and tf.as_dtype(np.bytes_) == tf.string


@pytest.mark.parametrize("value", [b"b", "s", [b"a", "b"], np.array([b"x"]), np.array(["y"]),
                                   np.array([b"z"], dtype=object)])
def test_placeholder_takes_bytes_str_lists_and_numpy_strings(value):
    p = tf.placeholder(tf.string)
    with tf.Session() as sess:
        got = sess.run(p, {p: value})
    expected = np.array(value, dtype=object)
    if isinstance(got, bytes):
        assert got == (value.encode() if isinstance(value, str) else value)
    else:
        assert got.dtype == object
        assert got.tolist() == [v.encode() if isinstance(v, str) else bytes(v) for v in expected.tolist()]


def test_bad_string_feeds_are_type_errors():
    p = tf.placeholder(tf.string)
    f = tf.placeholder(tf.float32)
    with tf.Session() as sess:
        with pytest.raises(TypeError, match="Cannot feed value"):
            sess.run(p, {p: 5})
        with pytest.raises(TypeError, match="Cannot feed value"):
            sess.run(p, {p: np.array([b"a", 3], dtype=object)})
        with pytest.raises((TypeError, ValueError)):
            sess.run(f, {f: "abc"})


def test_string_ops_values():
    x = tf.constant([["a", "b"], ["c", LONG]])
    with tf.Session() as sess:
        assert sess.run(tf.concat([x, x], 0)).shape == (4, 2)
        assert sess.run(tf.gather(x, [1]))[0, 1] == LONG.encode()
        assert sess.run(tf.strings.join(["a", x[0]], separator="+")).tolist() == [b"a+a", b"a+b"]
        assert sess.run(tf.string_join(["p", "q"])) == b"pq"
        assert sess.run(tf.equal(x, "c")).tolist() == [[False, False], [True, False]]
        assert sess.run(tf.boolean_mask(tf.constant(["u", "v"]), [False, True])).tolist() == [b"v"]


def test_report_and_assert_variables_initialized():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable([1, 2], name="b")
    report = tf.report_uninitialized_variables()
    check = tf.assert_variables_initialized()
    assert report.dtype == tf.string
    assert report.op.name == "report_uninitialized_variables/boolean_mask/GatherV2"
    with tf.Session() as sess:
        assert sess.run(report).tolist() == [b"a", b"b"]
        sess.run(a.initializer)
        assert sess.run(report).tolist() == [b"b"]
        with pytest.raises(tf.errors.FailedPreconditionError, match="variable 'b' is uninitialized"):
            sess.run(check)
        sess.run(b.initializer)
        assert sess.run(report).shape == (0,)
        assert sess.run(check).tolist() == [0, 1]
    with tf.Graph().as_default():
        assert tf.assert_variables_initialized() is None


def test_same_results_as_tensorflow():
    python = require_tensorflow("test_same_results_as_tensorflow")
    ours = string_cases.run_all(tf, lambda g: tf.Session(graph=g))
    theirs = ast.literal_eval(run_tf_script(python, "string_results.py"))
    assert sorted(ours) == sorted(theirs)
    for name in theirs:
        assert ours[name] == theirs[name], name


def test_fifo_queue_batches_and_unbatches_strings():
    # enqueue_many splits a batch and dequeue_many stacks elements: both copy strings.
    q = tf.FIFOQueue(10, [tf.string, tf.int32], shapes=[[2], []])
    many = q.enqueue_many([[[b"a", LONG], [b"", b"\x00z"], [b"q", b"r"]], [1, 2, 3]])
    one = q.enqueue([[b"s", b"t"], 4])
    batch = q.dequeue_many(2)
    single = q.dequeue()
    with tf.Session() as sess:
        sess.run(many)
        sess.run(one)
        words, ids = sess.run(batch)
        assert words.tolist() == [[b"a", LONG.encode()], [b"", b"\x00z"]] and ids.tolist() == [1, 2]
        words, ids = sess.run(single)
        assert words.tolist() == [b"q", b"r"] and ids == 3
        words, ids = sess.run(single)
        assert words.tolist() == [b"s", b"t"] and ids == 4
