"""tf.gradients through tf.while_loop with TF1's stacks (while_grad.py: each forward
iteration pushes its incoming state, the backward loop pops it and re-runs the body once):
bit-for-bit the unrolled graph's gradient on a fixed-length loop, TensorFlow's own v1 loop
gradient on loops whose length depends on the data, and linear in the iteration count."""
import json
import time

import numpy as np

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script


def _fixed_length(unrolled, chain_only, n=6):
    """A body reading its int counter and a loop-invariant matrix and vector. chain_only: the
    carried vector is the body's only use of its input (each gradient then has one term per
    op, summed in the same order both ways); else a running sum reads it too."""
    rng = np.random.default_rng(18)
    x = tf.constant(rng.standard_normal(3))
    w = tf.constant(rng.standard_normal((3, 3)) * 0.7)
    v0 = tf.constant(rng.standard_normal(3))

    def body(i, v, total):
        h = tf.tanh(tf.reshape(tf.matmul(w, tf.reshape(v, [3, 1])), [3]) + x * tf.cast(i, tf.float64))
        return i + 1, h, total if chain_only else total + tf.reduce_sum(h * v)

    state = (tf.constant(0), v0, tf.constant(0.0, tf.float64))
    if unrolled:
        for _ in range(n):
            state = body(*state)
    else:
        state = tf.while_loop(lambda i, v, t: i < n, body, state)
    _, v, total = state
    loss = total + tf.reduce_sum(v * v)
    return [loss] + tf.gradients(loss, [v0, x, w])


def _run_both(chain_only):
    results = []
    for unrolled in (False, True):
        with tf.Graph().as_default():
            fetches = _fixed_length(unrolled, chain_only)
            with tf.Session() as sess:
                results.append(sess.run(fetches))
    for ours, unrolled in zip(*results):
        assert ours.shape == unrolled.shape
    return results


def test_gradient_equals_the_unrolled_loop_bit_for_bit():
    ours, unrolled = _run_both(chain_only=True)
    # The loss and the gradient carried back through the loop variable: the same ops on the
    # same values, bit for bit.
    np.testing.assert_array_equal(ours[0], unrolled[0])
    np.testing.assert_array_equal(ours[1], unrolled[1])
    # An outside tensor's gradient sums one term per iteration: the loop adds them last
    # iteration first, the unrolled graph in its own order, so the last bit may differ.
    for a, b in zip(ours[2:], unrolled[2:]):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)


def test_gradient_of_a_body_reading_its_input_twice_equals_the_unrolled_loop():
    # Two uses of the carried vector per iteration: sums of two or three terms, added in
    # another order than the unrolled graph's, hence a last-bit tolerance.
    ours, unrolled = _run_both(chain_only=False)
    np.testing.assert_array_equal(ours[0], unrolled[0])
    for a, b in zip(ours[1:], unrolled[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)


def test_the_loop_gradient_is_built_on_stacks_not_replays():
    with tf.Graph().as_default() as g:
        _fixed_length(False, chain_only=False)
        types = [op.type for op in g.get_operations()]
        names = [op.name for op in g.get_operations()]
    # One stack per loop variable (3), pushed in the forward frame, popped in the backward one.
    assert types.count("StackV2") == 3 and types.count("StackPushV2") == 3 and types.count("StackPopV2") == 3
    assert types.count("StackCloseV2") == 3
    assert [n for n in names if n.startswith("while/f_acc_push")], names
    assert not [n for n in names if "replay" in n]


def test_a_long_loop_gradient_takes_linear_time():
    # Recomputation (the earlier while_grad.py) took ~3 s for 1,000 iterations and grows as N^2;
    # with stacks 20,000 iterations take well under a second.
    x = tf.constant(0.3, tf.float64)
    w = tf.constant(0.9, tf.float64)
    n = tf.placeholder(tf.int32, [])
    _, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, tf.sin(v) * w + 0.1), [0, x])
    grads = tf.gradients(v, [x, w])
    with tf.Session() as sess:
        small = sess.run(grads, {n: 3})
        start = time.time()
        big = sess.run(grads, {n: 20000})
        elapsed = time.time() - start
    # d/dx of sin(sin(sin(x)*w+.1)*w+.1)... checked by hand for n = 3.
    a0 = 0.3
    a1 = np.sin(a0) * 0.9 + 0.1
    a2 = np.sin(a1) * 0.9 + 0.1
    np.testing.assert_allclose(small[0], 0.9 ** 3 * np.cos(a0) * np.cos(a1) * np.cos(a2), rtol=1e-12)
    assert big[0] == 0.0 and np.isfinite(big[1])
    assert elapsed < 10.0, elapsed


def test_two_gradients_of_one_loop_run_in_one_step():
    # Each tf.gradients call adds its own counter and stacks to the forward loop.
    x = tf.constant(0.7, tf.float64)
    v = tf.while_loop(lambda v: v < 5.0, lambda v: v * 1.7 + tf.sin(v), [x])
    first = tf.gradients(v, x)[0]
    second = tf.gradients(v * v, x)[0]
    with tf.Session() as sess:
        a, b, value = sess.run([first, second, v])
        again = sess.run(first)
    assert a == again
    np.testing.assert_allclose(b, 2 * value * a, rtol=1e-12)


def test_data_dependent_loops_match_tensorflow():
    from while_grad_data_programs import PROGRAMS, RUNS, feeds
    python = require_tensorflow("test_data_dependent_loops_match_tensorflow")
    theirs = json.loads(run_tf_script(python, "while_grad_data.py").strip().splitlines()[-1])
    for name, build in PROGRAMS.items():
        with tf.Graph().as_default():
            placeholders, fetches = build(tf, tf)
            with tf.Session() as sess:
                for k in RUNS:
                    got = sess.run(fetches, {placeholders[n]: v for n, v in feeds(name, k).items()})
                    for ours, tf_value in zip(got, theirs[name][str(k)]):
                        tf_value = np.array(tf_value)
                        assert ours.shape == tf_value.shape, (name, k)
                        rtol = 1e-5 if ours.dtype == np.float32 else 1e-9
                        np.testing.assert_allclose(ours, tf_value, rtol=rtol, atol=rtol * 1e-3, err_msg=f"{name} run {k}")


def test_back_prop_false_makes_the_loop_a_constant():
    x = tf.constant(0.5, tf.float64)
    v = tf.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, [x], back_prop=False)
    assert tf.gradients(v, x) == [None]
    with tf.Session() as sess:
        assert sess.run(tf.gradients(v * x, x)[0]) == 16.0


def test_running_the_loop_without_its_gradient_leaves_the_gradient_right():
    # The gradient's pops are matched to the pushes: a run of the forward loop without the
    # gradient pushes nothing (the pushes hang off the gradient's counter).
    x = tf.constant(0.5, tf.float64)
    v = tf.while_loop(lambda v: v < 10.0, lambda v: v * 2.0 + tf.sin(v), [x])
    g = tf.gradients(v, x)[0]
    with tf.Session() as sess:
        alone = sess.run(v)
        value, grad = sess.run([v, g])
        assert alone == value
        assert sess.run(g) == grad


def test_an_optimizer_trains_through_a_loop():
    # The C++ optimizer's own gradient pass takes a loop as a constant: minimize and
    # compute_gradients go through Python's tf.gradients when the graph has loops.
    w = tf.Variable(0.5, dtype=tf.float64)
    x = tf.constant(1.2, tf.float64)
    v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.sin(v) * w + x), [0, x])[1]
    opt = tf.train.GradientDescentOptimizer(0.1)
    (grad, var), = opt.compute_gradients(v, [w])
    expected = tf.gradients(v, w)[0]
    step = opt.minimize(v, var_list=[w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g, e = sess.run([grad, expected])
        assert var is w and g == e and g != 0.0
        sess.run(step)
        np.testing.assert_allclose(sess.run(w), 0.5 - 0.1 * e, rtol=1e-12)
