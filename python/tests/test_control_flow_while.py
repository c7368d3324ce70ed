"""tf.while_loop as TF1's dataflow loop (Enter, Merge, Switch, LoopCond, NextIteration, Exit;
frames and iterations in the executor), against TensorFlow.

The while_* GraphDefs in tests/data/tf_control_flow/ were written by TensorFlow with control
flow v1 (generate.py there): they import and give TensorFlow's values here, and the same
programs built with our tf.while_loop do too. Errors are compared with the ones TF1 raises."""
import json
import re
import os
import threading
import time

import numpy as np
import pytest

import tensorweave as tf
from test_control_flow_cond import FIXTURES, _check_runs
from tf_peer import require_tensorflow, run_tf_script


def _build_while_collatz():
    n = tf.placeholder(tf.int64, [], name="n")
    _, steps = tf.while_loop(lambda v, k: v > 1,
                             lambda v, k: (tf.where(tf.equal(v % 2, 0), v // 2, 3 * v + 1), k + 1),
                             [n, tf.constant(0, tf.int64)], name="collatz")
    tf.identity(steps, name="steps")


def _build_while_nested():
    n = tf.placeholder(tf.int32, [], name="n")

    def outer_body(i, total):
        _, inner = tf.while_loop(lambda j, acc: j < i, lambda j, acc: (j + 1, acc + i * j),
                                 [tf.constant(0), total], name="inner")
        return i + 1, inner

    _, total = tf.while_loop(lambda i, t: i < n, outer_body, [tf.constant(0), tf.constant(0)], name="outer")
    tf.identity(total, name="total")


def _build_while_power_iteration():
    a = tf.placeholder(tf.float64, [4, 4], name="a")
    steps = tf.placeholder(tf.int32, [], name="steps")

    def body(k, v):
        w = tf.matmul(a, v)
        return k + 1, w / tf.norm(w)

    _, v = tf.while_loop(lambda k, v: k < steps, body, [tf.constant(0), tf.ones([4, 1], tf.float64)],
                         parallel_iterations=4, name="power")
    tf.identity(tf.reduce_sum(v * tf.matmul(a, v)), name="eigenvalue")
    tf.identity(v, name="vector")


BUILDERS = {"while_collatz": _build_while_collatz, "while_nested": _build_while_nested,
            "while_power_iteration": _build_while_power_iteration}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_tensorflow_while_graphdef_runs_with_tensorflows_results(name):
    g = tf.Graph()
    with open(os.path.join(FIXTURES, name + ".pb"), "rb") as f:
        g.import_graph_def(f.read())
    assert {"Enter", "Merge", "Switch", "LoopCond", "NextIteration", "Exit"} <= {op.type for op in g.get_operations()}
    _check_runs(g, name)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_our_while_loop_gives_tensorflows_results(name):
    g = tf.Graph()
    with g.as_default():
        BUILDERS[name]()
    _check_runs(g, name)


def test_while_loop_builds_tf1_structure():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(2.0)
        out = tf.while_loop(lambda v: v < 100.0, lambda v: v * x, [tf.constant(1.0)], name="grow")
        ops = {op.name: op.type for op in g.get_operations()}
    assert out.op.type == "Exit" and out.name == "grow/Exit:0"
    for name, kind in [("grow/Enter", "Enter"), ("grow/Merge", "Merge"), ("grow/LoopCond", "LoopCond"),
                       ("grow/Switch", "Switch"), ("grow/Identity", "Identity"),
                       ("grow/NextIteration", "NextIteration"), ("grow/Exit", "Exit")]:
        assert ops.get(name) == kind, name
    merge = g.get_operation_by_name("grow/Merge")
    assert [t.op.type for t in merge.inputs] == ["Enter", "NextIteration"]
    # The captured x enters as a loop invariant.
    graph_def = g.as_graph_def()
    enters = {n.name: n for n in graph_def.node if n.op == "Enter"}
    assert {n.attr["frame_name"].s for n in enters.values()} == {b"grow"}
    assert [n.input[0] for n in enters.values() if n.attr["is_constant"].b] == [x.op.name]
    with tf.Session(graph=g) as sess:
        assert sess.run(out) == 128.0


def test_power_iteration_matches_numpy_eig():
    rng = np.random.default_rng(7)
    m = rng.standard_normal((5, 5))
    m = m @ m.T
    a = tf.constant(m)

    def body(k, v):
        w = tf.matmul(a, v)
        return k + 1, w / tf.norm(w)

    _, v = tf.while_loop(lambda k, v: k < 500, body, [0, tf.ones([5, 1], tf.float64)])
    eigenvalue = tf.reduce_sum(v * tf.matmul(a, v))
    with tf.Session() as sess:
        got = sess.run(eigenvalue)
    np.testing.assert_allclose(got, np.max(np.abs(np.linalg.eig(m)[0])), rtol=1e-9)


def test_nested_structures_cond_in_body_and_maximum_iterations():
    n = tf.placeholder(tf.int32, [])
    state = {"count": tf.constant(0), "pair": (tf.constant(1.0), [tf.constant(0.0)])}

    def body(s):
        big = tf.cond(s["pair"][0] > 10.0, lambda: s["pair"][0] * 0.5, lambda: s["pair"][0] * 3.0)
        return {"count": s["count"] + 1, "pair": (big, [s["pair"][1][0] + big])}

    out = tf.while_loop(lambda s: s["count"] < n, body, [state])
    capped = tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0)], maximum_iterations=n)
    assert isinstance(out, dict) and isinstance(out["pair"], tuple) and isinstance(out["pair"][1], list)

    def expected(count):
        value, total = 1.0, 0.0
        for _ in range(count):
            value = value * 0.5 if value > 10.0 else value * 3.0
            total += value
        return value, total

    with tf.Session() as sess:
        for count in (0, 1, 6, 13):
            got = sess.run(out, {n: count})
            assert got["count"] == count
            np.testing.assert_allclose([got["pair"][0], got["pair"][1][0]], expected(count), rtol=1e-6)
            assert sess.run(capped, {n: count}) == count


TF_ERRORS = r'''
import json, sys
import tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()
out = {}
with tf1.Graph().as_default():
    try:
        tf1.while_loop(lambda v: v[0] < 10, lambda v: tf.concat([v, v], 0), [tf.constant([1])])
    except Exception as e:
        out["shape"] = [type(e).__name__, str(e)]
    try:
        tf1.while_loop(lambda a, b: a < 10, lambda a, b: (a + 1,), [tf.constant(0), tf.constant(1)])
    except Exception as e:
        out["structure"] = [type(e).__name__, str(e)]
print(json.dumps(out))
'''


def test_errors_match_tensorflow(tmp_path):
    python = require_tensorflow("test_errors_match_tensorflow")
    script = tmp_path / "tf_while_errors.py"
    script.write_text(TF_ERRORS)
    import subprocess

    from tf_peer import tf_env
    done = subprocess.run([python, str(script)], env=tf_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as shape:
            tf.while_loop(lambda v: v[0] < 10, lambda v: tf.concat([v, v], 0), [tf.constant([1])])
        with pytest.raises(ValueError) as structure:
            tf.while_loop(lambda a, b: a < 10, lambda a, b: (a + 1,), [tf.constant(0), tf.constant(1)])
    assert theirs["shape"][0] == "ValueError"
    # TF names the loop var by its tensor ("Const:0"), as we do, and both shapes.
    assert str(shape.value) == theirs["shape"][1]
    assert theirs["structure"][0] == "ValueError"
    for needle in ("don't have the same nested structure", "First structure", "Second structure"):
        assert needle in theirs["structure"][1] and needle in str(structure.value)


def test_shape_invariants_let_a_shape_vary():
    x = tf.while_loop(lambda v: tf.size(v) < 10, lambda v: tf.concat([v, v], 0), [tf.constant([1])],
                      shape_invariants=[tf.TensorShape([None])])
    assert x.shape.as_list() == [None]
    with tf.Session() as sess:
        assert sess.run(x).tolist() == [1] * 16


def test_an_endless_loop_is_stopped_by_the_step_deadline_and_by_close():
    v = tf.while_loop(lambda i: i >= 0, lambda i: i + 1 - 1, [tf.constant(0)])
    sess = tf.Session()
    start = time.time()
    with pytest.raises(tf.errors.DeadlineExceededError):
        sess.run(v, options=tf.RunOptions(timeout_in_ms=300))
    assert time.time() - start < 30
    errors = []

    def run():
        try:
            sess.run(v)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(0.3)
    sess.close()
    worker.join(30)
    assert not worker.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], (tf.errors.CancelledError, tf.errors.AbortedError)), errors
    # The session's operation_timeout_in_ms as well; the session stays usable after it.
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=300)) as timed:
        with pytest.raises(tf.errors.DeadlineExceededError):
            timed.run(v)
        assert timed.run(tf.while_loop(lambda i: i < 5, lambda i: i + 1, [0])) == 5


def test_a_loop_inside_a_cond_branch_runs_only_when_taken():
    x = tf.placeholder(tf.int32, [])
    y = tf.cond(x > 0, lambda: tf.while_loop(lambda i, a: i < x, lambda i, a: (i + 1, a + i), [0, 0])[1],
                lambda: -x)
    with tf.Session() as sess:
        assert [sess.run(y, {x: v}) for v in (5, -3, 0, 10)] == [10, 3, 0, 45]


TF_RUNS_OURS = r'''
import sys
import numpy as np
import tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
graph_def = tf1.GraphDef.FromString(open(sys.argv[1], "rb").read())
with tf1.Graph().as_default() as g:
    tf1.import_graph_def(graph_def, name="")
    with tf1.Session() as sess:
        print(" ".join(str(sess.run("steps:0", {"n:0": np.int64(v)})) for v in (1, 6, 27, 97)))
'''


def test_tensorflow_runs_the_graph_our_while_loop_builds(tmp_path):
    """Our loop's GraphDef is TF1's structure: TensorFlow imports and runs it."""
    python = require_tensorflow("test_tensorflow_runs_the_graph_our_while_loop_builds")
    g = tf.Graph()
    with g.as_default():
        _build_while_collatz()
    (tmp_path / "ours.pb").write_bytes(g.as_graph_def().SerializeToString())
    (tmp_path / "run_ours.py").write_text(TF_RUNS_OURS)
    import subprocess

    from tf_peer import tf_env
    done = subprocess.run([python, str(tmp_path / "run_ours.py"), str(tmp_path / "ours.pb")], env=tf_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    expected = np.load(os.path.join(FIXTURES, "while_collatz.npz"))
    assert done.stdout.split() == [str(int(expected[f"run{k}/fetch:steps:0"])) for k in range(4)]


# TF1's stacks (StackV2/StackPushV2/StackPopV2/StackCloseV2), the store TF1's loop gradient
# uses: one loop pushes every iteration's value, a second pops them in reverse order
# (stack_programs.py, the same program on both sides; tf_side/stack_loops.py runs it in TF).
def test_stacks_in_loops_match_tensorflow():
    python = require_tensorflow("test_stacks_in_loops_match_tensorflow")
    theirs = json.loads(run_tf_script(python, "stack_loops.py").strip().splitlines()[-1])
    from stack_programs import FEED_X, RUNS, stack_program

    from tensorweave.framework import _op, _op_output
    ops = {"StackV2": lambda m: _op_output("StackV2", [tf.constant(m)], {"elem_type": tf.float32, "stack_name": "acc"}),
           "StackPushV2": lambda h, v: _op_output("StackPushV2", [h, v]),
           "StackPopV2": lambda h: _op_output("StackPopV2", [h], {"elem_type": tf.float32}),
           "StackCloseV2": lambda h: _op("StackCloseV2", [h])}
    x, n, fetches, close = stack_program(tf, tf, ops)
    with tf.Session() as sess:
        for k in RUNS:
            values = sess.run(fetches + [close], {x: np.array(FEED_X, np.float32), n: k})[:2]
            np.testing.assert_allclose(np.array(values), np.array(theirs[str(k)]), rtol=1e-6)
        # TF's text, the stack's serial number aside: "Stack[acc_2] is empty when calling Pop()."
        assert re.search(r"Stack\[acc_\d+\] is empty when calling Pop\(\)\.", theirs["empty"]), theirs["empty"]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Stack\[acc_\d+\] is empty when calling Pop\(\)\."):
            sess.run(ops["StackPopV2"](ops["StackV2"](-1)))


def test_gradients_through_a_loop_match_tensorflow_and_finite_differences():
    """tf.gradients through a while_loop of fed length (a body with a loop invariant matrix, a
    carried vector and an accumulated sum): TensorFlow's own v1 loop gradient, and central
    differences of the loss, agree with ours."""
    from while_grad_programs import RUNS, build, feeds
    python = require_tensorflow("test_gradients_through_a_loop_match_tensorflow_and_finite_differences")
    theirs = json.loads(run_tf_script(python, "while_grads.py").strip().splitlines()[-1])
    placeholders, fetches = build(tf, tf)
    with tf.Session() as sess:
        for k in RUNS:
            fed = feeds(k)
            got = sess.run(fetches, {placeholders[name]: v for name, v in fed.items()})
            for ours, tf_value in zip(got, theirs[str(k)]):
                np.testing.assert_allclose(ours, np.array(tf_value), rtol=1e-9, atol=1e-12)
            # Central differences of the loss in x.
            eps = 1e-6
            for j in range(3):
                plus, minus = dict(fed), dict(fed)
                plus["x"] = fed["x"].copy()
                plus["x"][j] += eps
                minus["x"] = fed["x"].copy()
                minus["x"][j] -= eps
                hi = sess.run(fetches[-1], {placeholders[nm]: v for nm, v in plus.items()})
                lo = sess.run(fetches[-1], {placeholders[nm]: v for nm, v in minus.items()})
                np.testing.assert_allclose(got[0][j], (hi - lo) / (2 * eps), rtol=1e-5, atol=1e-7)


def test_gradients_through_three_nested_loops_match_central_differences():
    # Each level's body re-runs the loops inside it (while_grad.py); the counts depend on the data.
    def python(x, w):
        v = x
        for i in range(3):
            u = v + w
            while u < 10.0:
                k = 0
                while k <= i:
                    u, k = u * 1.5 + w * x, k + 1
            v = u * 0.25
        return v

    def graph(x, w):
        def middle(i, v):
            def step(u):
                return tf.while_loop(lambda k, z: k <= i, lambda k, z: (k + 1, z * 1.5 + w * x), [0, u])[1]
            return tf.while_loop(lambda u: u < 10.0, step, [v + w]) * 0.25
        return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, middle(i, v)), [0, x])[1]

    x, w = tf.placeholder(tf.float64, []), tf.placeholder(tf.float64, [])
    y = graph(x, w)
    grads = tf.gradients(y, [x, w])
    eps = 1e-6
    with tf.Session() as sess:
        for x0, w0 in ((0.5, 0.3), (1.7, -0.2), (3.0, 0.05)):
            value, gx, gw = sess.run([y] + grads, {x: x0, w: w0})
            assert value == pytest.approx(python(x0, w0), rel=1e-12)
            assert gx == pytest.approx((python(x0 + eps, w0) - python(x0 - eps, w0)) / (2 * eps), rel=1e-5)
            assert gw == pytest.approx((python(x0, w0 + eps) - python(x0, w0 - eps)) / (2 * eps), rel=1e-5)


def test_gradient_of_two_loops_side_by_side_matches_the_unrolled_graph():
    # Each loop's gradient must skip the other loop (it once recursed between them).
    def build(unrolled):
        x = tf.constant(1.3, tf.float64)
        y = tf.constant(0.4, tf.float64)
        if unrolled:
            a, b = x, y
            for _ in range(3):
                a = a * tf.sin(a)
            for _ in range(2):
                b = b * x + y
        else:
            a = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * tf.sin(a)), [0, x])[1]
            b = tf.while_loop(lambda i, b: i < 2, lambda i, b: (i + 1, b * x + y), [0, y])[1]
        return tf.gradients(a + b * b, [x, y])

    results = []
    for unrolled in (False, True):
        with tf.Graph().as_default():
            grads = build(unrolled)
            with tf.Session() as sess:
                results.append(sess.run(grads))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_gradient_through_a_loop_with_a_shape_invariant_matches_the_unrolled_graph():
    # The gradient's replay loops need the loop's shape invariants (a growing loop variable).
    def build(unrolled):
        x = tf.constant(0.7, tf.float64)
        acc = tf.reshape(x, [1])
        grow = lambda a: tf.concat([a, tf.reshape(tf.sin(a[-1]) * x, [1])], 0)  # noqa: E731
        if unrolled:
            for _ in range(3):
                acc = grow(acc)
        else:
            acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, grow(a)), [0, acc],
                                shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])[1]
        return [acc] + tf.gradients(tf.reduce_sum(acc * acc), [x])

    results = []
    for unrolled in (False, True):
        with tf.Graph().as_default():
            fetches = build(unrolled)
            with tf.Session() as sess:
                results.append(sess.run(fetches))
    for ours, unrolled in zip(*results):
        np.testing.assert_allclose(ours, unrolled, rtol=1e-12)


def test_a_loop_variable_with_a_shape_invariant_keeps_it_in_the_session_graph():
    # The session's copy of the graph infers the Merge's shape again; it must see the invariant,
    # not the first value's shape (a Reshape after the loop failed on the scalar shape).
    r = tf.while_loop(lambda i, o: i < 3, lambda i, o: (i + 1, tf.ones([2, 3]) + o), (0, tf.zeros([])),
                      shape_invariants=(tf.TensorShape([]), tf.TensorShape(None)))[1]
    flat = tf.reshape(r, [-1, 6])
    with tf.Session() as sess:
        value, flat_value = sess.run([r, flat])
    np.testing.assert_array_equal(value, np.full([2, 3], 3.0, np.float32))
    assert flat_value.shape == (1, 6)
