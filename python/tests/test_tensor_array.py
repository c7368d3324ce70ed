"""tf.TensorArray (TF1's TensorArrayV3 ops) against TensorFlow: the programs of
tensor_array_programs.py (values, static shapes, gradients, inside while loops and through
their O(N) gradient) and the error cases (class and message; an array's serial number aside)."""
import json
import re

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script
from tensor_array_programs import ERRORS, PROGRAMS


@pytest.fixture(scope="module")
def theirs():
    python = require_tensorflow("test_tensor_array")
    return json.loads(run_tf_script(python, "tensor_array_cases.py").strip().splitlines()[-1])


def _static(t):
    return None if t.shape.dims is None else list(t.shape.dims)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_tensorflow(theirs, name):
    with tf.Graph().as_default():
        fetches = PROGRAMS[name](tf, tf)
        assert [_static(f) for f in fetches] == theirs["static_shapes"][name]
        with tf.Session() as sess:
            got = sess.run(fetches)
    for ours, tf_value, shape in zip(got, theirs["values"][name], theirs["shapes"][name]):
        tf_value = np.array(tf_value).reshape(shape)
        assert np.shape(ours) == tf_value.shape, name
        np.testing.assert_allclose(ours, tf_value, rtol=2e-6, atol=1e-6, err_msg=name)


def _serial(text):
    return re.sub(r"TensorArray_\d+", "TensorArray_N", text)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_tensorflow(theirs, name):
    kind, message = theirs["errors"][name]
    with tf.Graph().as_default():
        if kind == "ValueError":
            with pytest.raises(ValueError) as raised:
                ERRORS[name](tf, tf)
            assert str(raised.value) == message
            return
        fetch = ERRORS[name](tf, tf)
        with tf.Session() as sess:
            with pytest.raises(getattr(tf.errors, kind)) as raised:
                sess.run(fetch)
    assert _serial(message) in _serial(str(raised.value)), (str(raised.value), message)


def test_a_closed_array_says_so():
    ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0)
    with tf.Session() as sess:
        with tf.control_dependencies([ta.close()]):
            after = ta.write(1, 2.0).flow
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"TensorArray TensorArray_\d+ has already been closed\."):
            sess.run(after)


def test_a_loop_gradient_through_tensor_arrays_equals_the_unrolled_graph():
    # The TensorArray loop (unstack, read per step, write per step, stack) and the same steps
    # unrolled with tf.unstack/tf.stack: one gradient.
    x = tf.constant(np.random.default_rng(5).standard_normal((6, 3)).astype(np.float64))
    w = tf.constant(np.random.default_rng(6).standard_normal((3, 3)).astype(np.float64) * 0.5)

    def step(h, xi):
        return tf.tanh(tf.reshape(tf.matmul(tf.reshape(h, [1, 3]), w), [3]) + xi)

    inputs = tf.TensorArray(tf.float64, size=6).unstack(x)
    def body(i, h, o):
        h = step(h, inputs.read(i))
        return i + 1, h, o.write(i, h)

    _, _, out = tf.while_loop(lambda i, h, o: i < 6, body, [0, tf.zeros([3], tf.float64), tf.TensorArray(tf.float64, 6)])
    looped = out.stack()
    h, rows = tf.zeros([3], tf.float64), []
    for xi in tf.unstack(x):
        h = step(h, xi)
        rows.append(h)
    unrolled = tf.stack(rows)
    grads = [tf.gradients(tf.reduce_sum(tf.sin(y)), [x, w]) for y in (looped, unrolled)]
    with tf.Session() as sess:
        a, b = sess.run(grads)
    for ours, ref in zip(a, b):
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-14)


def test_arrays_live_for_one_step():
    # As TF's step container: a step's arrays (and their gradient arrays) go when it ends. Forty
    # steps of a 25 MB array would hold 1 GB if they stayed.
    import resource
    x = tf.placeholder(tf.float32, [None])
    ta = tf.TensorArray(tf.float32, size=1).write(0, x * 2.0)
    total = tf.reduce_sum(ta.stack())
    grad = tf.gradients(total, x)[0]
    big = np.ones(25 << 18, np.float32)  # 25 MB
    with tf.Session() as sess:
        sess.run([total, grad], {x: big})
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for _ in range(40):
            value, _ = sess.run([total, grad], {x: big})
        grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert value == 2.0 * big.size
    assert grown_mb < 300, grown_mb
