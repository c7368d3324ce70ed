"""tf.cond / tf.case as TF1's dataflow cond (Switch, Merge, dead tensors), against TensorFlow.

The GraphDefs in tests/data/tf_control_flow/ were written by TensorFlow with control flow v1
(generate.py there; MANIFEST.txt names the version): they must import and give TensorFlow's
values here, and the same programs built with our tf.cond must too. Errors (mismatched
branches, fetching a dead tensor) are compared with the ones TensorFlow raises."""
import json
import os
import re
import threading

import numpy as np
import pytest

import tensorweave as tf
from tensorweave import control_flow_ops
from tf_peer import require_tensorflow, run_tf_script

FIXTURES = os.path.join(os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                        "tests", "data", "tf_control_flow")


def _runs(data):
    """[(feeds, fetches)] per run k of a fixture's npz."""
    runs = {}
    for key in data.files:
        if "/" not in key:  # init:<op>, train:<op>
            continue
        run, rest = key.split("/", 1)
        kind, tensor = rest.split(":", 1)
        runs.setdefault(int(run[3:]), ({}, {}))[0 if kind == "feed" else 1][tensor] = data[key]
    return [runs[k] for k in sorted(runs)]


def _check_runs(graph, name):
    data = np.load(os.path.join(FIXTURES, name + ".npz"))
    runs = _runs(data)
    assert len(runs) >= 4
    ops = {kind: graph.get_operation_by_name(key.split(":", 1)[1]) for kind in ("init", "train")
           for key in data.files if key.startswith(kind + ":")}
    with tf.Session(graph=graph) as sess:
        if ops:
            sess.run(ops["init"])
        for feeds, fetches in runs:
            if ops:
                sess.run(ops["train"], {graph.get_tensor_by_name(t): v for t, v in feeds.items()})
            got = sess.run([graph.get_tensor_by_name(f) for f in fetches],
                           {graph.get_tensor_by_name(t): v for t, v in feeds.items()})
            for (fetch, expected), value in zip(fetches.items(), got):
                value = np.asarray(value)
                assert value.dtype == expected.dtype and value.shape == expected.shape, fetch
                np.testing.assert_allclose(value, expected, rtol=2e-6, atol=1e-6, err_msg=f"{name} {fetch}")


def _build_cond_branches():
    """generate.py's cond_branches, with our tf.cond."""
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.constant([1.5, -2.0, 0.25], name="w")
    s = tf.reduce_sum(x * w)
    y = tf.cond(s > 0.0,
                lambda: tf.tanh(x) * w + 1.0,
                lambda: tf.cond(s < -1.0, lambda: tf.square(x) - w, lambda: x * 0.5),
                name="outer")
    pair = tf.cond(x[0] > x[1], lambda: (x[0], tf.cast(x[1], tf.int32)),
                   lambda: (x[1], tf.constant(-7)), name="pair")
    tf.identity(y, name="y")
    tf.identity(pair[0], name="pair_value")
    tf.identity(pair[1], name="pair_int")


def _build_case_select():
    n = tf.placeholder(tf.int32, [], name="n")
    v = tf.placeholder(tf.float32, [2, 2], name="v")
    out = tf.case([(tf.equal(n, 0), lambda: tf.matmul(v, v)),
                   (tf.equal(n, 1), lambda: tf.transpose(v)),
                   (n > 5, lambda: tf.reduce_sum(v, keepdims=True) + v)],
                  default=lambda: -v, name="select")
    tf.identity(out, name="out")


BUILDERS = {"cond_branches": _build_cond_branches, "case_select": _build_case_select}


# Imported only: TensorFlow's own cond gradient graph, trained step by step.
IMPORTED_ONLY = ["cond_training"]
# TensorFlow while_loops: run by test_control_flow_while.py.
LOOPS = ["while_collatz", "while_nested", "while_power_iteration"]


def test_the_fixtures_are_there():
    assert sorted(os.path.basename(p)[:-3] for p in os.listdir(FIXTURES)
                  if p.endswith(".pb")) == sorted([*BUILDERS, *IMPORTED_ONLY, *LOOPS])
    assert "written by TensorFlow 2." in open(os.path.join(FIXTURES, "MANIFEST.txt")).read()


@pytest.mark.parametrize("name", sorted([*BUILDERS, *IMPORTED_ONLY]))
def test_tensorflow_cond_graphdef_runs_with_tensorflows_results(name):
    g = tf.Graph()
    with open(os.path.join(FIXTURES, name + ".pb"), "rb") as f:
        g.import_graph_def(f.read())
    assert {"Switch", "Merge"} <= {op.type for op in g.get_operations()}
    _check_runs(g, name)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_our_cond_gives_tensorflows_results(name):
    g = tf.Graph()
    with g.as_default():
        BUILDERS[name]()
    _check_runs(g, name)


def test_cond_builds_tf1_structure():
    """Switch of the predicate, pivots, pred_id, one Switch per captured tensor, a constant
    hanging on the pivot, one Merge per output: TF1's cond_v1 graph."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        tf.cond(x > 0, lambda: x * 2, lambda: tf.constant(-1.0) - x)
    ops = {op.name: op for op in g.get_operations()}
    assert ops["cond/Switch"].type == "Switch" and ops["cond/switch_t"].type == "Identity"
    assert ops["cond/pred_id"].type == "Identity"
    switches = [op for op in ops.values() if op.type == "Switch" and op.inputs[0].name == "x:0"]
    assert len(switches) == 2 and all(s.inputs[1].name == "cond/pred_id:0" for s in switches)
    merges = [op for op in ops.values() if op.type == "Merge"]
    assert len(merges) == 1
    consts = [op for op in ops.values() if op.type == "Const" and op.name.startswith("cond/")]
    assert sorted(c.name for op in consts for c in op.control_inputs) == ["cond/switch_f", "cond/switch_t"]


def test_only_the_taken_branch_runs():
    """The untaken branch's kernels do not run: its failing check never fires."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.cond(x > 0, lambda: tf.sqrt(x),
                    lambda: tf.identity(tf.Print(x, [x], "never printed when x > 0") * 0.0))
        checked = tf.cond(x >= 0, lambda: x, lambda: tf.cast(tf.Assert(tf.constant(False), [x]) is None, tf.float32))
        with tf.Session() as sess:
            assert sess.run(y, {x: 4.0}) == 2.0
            assert sess.run(y, {x: -4.0}) == 0.0
            assert sess.run(checked, {x: 3.0}) == 3.0


def test_errors_match_tensorflow():
    python = require_tensorflow("test_errors_match_tensorflow")
    expected = json.loads(run_tf_script(python, "cond_errors.py"))
    x = tf.placeholder(tf.float32, [], name="x")
    got = {}
    for key, fn in (("structure", lambda: tf.cond(x > 0, lambda: x, lambda: (x, x))),
                    ("dtype", lambda: tf.cond(x > 0, lambda: x, lambda: tf.constant(1))),
                    ("no_value", lambda: tf.cond(x > 0, lambda: None, lambda: x))):
        with pytest.raises(Exception) as info:
            fn()
        got[key] = [type(info.value).__name__, str(info.value)]
    for key in ("dtype", "no_value"):
        assert got[key] == expected[key], key
    # The structures: the same kind and the same summary of both sides as TensorFlow's.
    assert got["structure"][0] == expected["structure"][0]
    assert got["structure"][1].startswith("The two structures don't have the same nested structure.")
    assert got["structure"][1].endswith(expected["structure"][1][expected["structure"][1].index("Entire first"):])

    with tf.Graph().as_default() as fresh:  # A fresh graph: the message names the preds.
        n = tf.placeholder(tf.int32, [], name="n")
        both = tf.case([(n > 0, lambda: tf.constant(1)), (n > 1, lambda: tf.constant(2))],
                       default=lambda: tf.constant(0), exclusive=True)
    with tf.Session(graph=fresh) as sess:
        assert sess.run(both, {n: 1}) == expected["exclusive_ok"]
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(both, {n: 5})
    assert expected["exclusive"][0] == "InvalidArgumentError"
    tf_assertion = re.search(r"assertion failed: .*", expected["exclusive"][1]).group(0)
    assert tf_assertion in str(info.value)

    _, when_positive = control_flow_ops.switch(x, x > 0)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(when_positive, {x: -1.0})
        assert sess.run(when_positive, {x: 2.0}) == 2.0
    assert expected["dead_fetch"][0] == "InvalidArgumentError"
    tf_text = expected["dead_fetch"][1].split("\n")[-1]  # "Retval[0] does not have value"
    assert tf_text in str(info.value) and "Switch:1" in str(info.value)


def test_merge_of_dead_inputs_is_dead_and_merge_takes_the_live_one():
    x = tf.placeholder(tf.float32, [], name="x")
    f, t = control_flow_ops.switch(x, x > 0)
    value, index = control_flow_ops.merge([f * 10.0, t + 1.0])
    f2, _ = control_flow_ops.switch(t, x > 0)  # dead whichever way x goes
    dead_merge, _ = control_flow_ops.merge([f2, f2 + 1.0])
    with tf.Session() as sess:
        assert sess.run([value, index], {x: 2.0}) == [3.0, 1]
        assert sess.run([value, index], {x: -2.0}) == [-20.0, 0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="does not have value"):
            sess.run(dead_merge, {x: 2.0})


def test_case_and_strict_unpacking():
    x = tf.placeholder(tf.int32, [], name="x")
    one = tf.cond(x > 0, lambda: [x + 1], lambda: [x - 1])  # non-strict: the element itself
    strict = tf.cond(x > 0, lambda: [x + 1], lambda: [x - 1], strict=True)
    first_true = tf.case([(x > 10, lambda: tf.constant(2)), (x > 0, lambda: tf.constant(1))],
                         default=lambda: tf.constant(0))
    with tf.Session() as sess:
        assert sess.run(one, {x: 3}) == 4
        assert sess.run(strict, {x: -3}) == [-4]
        assert [sess.run(first_true, {x: v}) for v in (20, 5, -5)] == [2, 1, 0]


def test_a_cond_spanning_devices_carries_the_dead_branch_over():
    """Branches on two devices: the untaken one's dead tensor crosses to the other device and
    its consumers stay dead there; fetching a dead tensor is TF's error, not a hang."""
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.device("/cpu:0"):
        f, t = control_flow_ops.switch(x, x > 0)
    with tf.device("/cpu:1"):
        only_positive = t * 2.0
        y = tf.cond(x > 0, lambda: x * 3.0, lambda: x - 1.0)
    with tf.device("/cpu:0"):
        z = y + 100.0
        both = tf.cond(x > 0, lambda: only_positive + 1.0, lambda: tf.identity(x))
    result = {}

    def run():
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
            result["values"] = [sess.run([z, both], {x: v}) for v in (2.0, -2.0)]
            assert sess.run(only_positive, {x: 1.0}) == 2.0
            try:
                sess.run(only_positive, {x: -1.0})
            except tf.errors.OpError as e:  # noqa: PERF203
                result["error"] = e
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the step hung"
    assert result["values"] == [[106.0, 5.0], [97.0, -2.0]]
    assert isinstance(result.get("error"), tf.errors.InvalidArgumentError), result
    assert "Retval[0] does not have value" in str(result["error"])


def test_cond_gradients_match_tensorflow(tmp_path):
    """Gradients through cond (Merge -> Switch on value_index, Switch -> Merge with the untaken
    side's zeros) give TensorFlow's control-flow-v1 values, on every branch."""
    from tf_side import cond_programs
    python = require_tensorflow("test_cond_gradients_match_tensorflow")
    run_tf_script(python, "cond_programs.py", str(tmp_path / "tf.json"))
    expected = json.loads((tmp_path / "tf.json").read_text())
    got = cond_programs.run_all(tf, lambda g: tf.Session(graph=g))
    assert sorted(got) == sorted(expected)
    for name in expected:
        for (y, dx), (ty, tdx) in zip(got[name], expected[name]):
            np.testing.assert_allclose(y, ty, rtol=1e-12, err_msg=name)
            np.testing.assert_allclose(dx, tdx, rtol=1e-12, atol=1e-12, err_msg=name)


def test_cond_gradient_matches_finite_differences():
    from tf_side import cond_programs
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [3], name="x")
        flag = tf.placeholder(tf.bool, [], name="flag")
        y, dx = cond_programs.nested(tf, x, flag)
        with tf.Session() as sess:
            for point in cond_programs.POINTS:
                p = np.array(point)
                analytic = sess.run(dx, {x: p, flag: True})
                eps = 1e-6
                numeric = [(sess.run(y, {x: p + eps * e, flag: True}) - sess.run(y, {x: p - eps * e, flag: True}))
                           / (2 * eps) for e in np.eye(3)]
                np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-6)


def test_training_through_cond_updates_by_the_taken_branch():
    """loss = w*x when x > 0 else w*w: SGD steps follow d(loss)/dw of the branch taken."""
    x = tf.placeholder(tf.float32, [], name="x")
    w = tf.Variable(2.0, name="w")
    loss = tf.cond(x > 0, lambda: w * x, lambda: w * w)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    expected = 2.0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for value in (3.0, -1.0, 0.5, -2.0):
            sess.run(train, {x: value})
            expected -= 0.1 * (value if value > 0 else 2 * expected)
            np.testing.assert_allclose(sess.run(w), expected, rtol=1e-6)


def test_state_changes_happen_only_on_the_taken_branch():
    """Assignments (made by the C++ variable, not through create_op) of an outside value
    run only when their branch is taken."""
    x = tf.placeholder(tf.float32, [], name="x")
    w = tf.Variable(2.0, name="w")
    update = tf.cond(x > 0, lambda: w.assign(x), lambda: w.assign_add(x * 0.5))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(update, {x: -4.0}) == 0.0 and sess.run(w) == 0.0
        assert sess.run(update, {x: 3.0}) == 3.0 and sess.run(w) == 3.0
        assert sess.run(update, {x: -1.0}) == 2.5 and sess.run(w) == 2.5


def test_branches_returning_operations_give_a_bool_tensor_as_tensorflow():
    """TF1 turns an op a branch returns into its pivot run after the op: a bool tensor."""
    x = tf.placeholder(tf.float32, [], name="x")
    v = tf.Variable(1.0, name="v")
    done = tf.cond(x > 0, lambda: v.assign(3.0).op, lambda: tf.no_op())
    value, op_done = tf.cond(x > 0, lambda: (x, tf.no_op()), lambda: (x * 2, tf.no_op()))
    assert done.dtype == tf.bool and op_done.dtype == tf.bool and value.dtype == tf.float32
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert not sess.run(done, {x: -1.0}) and sess.run(v) == 1.0
        assert sess.run(done, {x: 1.0}) and sess.run(v) == 3.0
        assert sess.run([value, op_done], {x: -2.0}) == [-4.0, False]


def test_a_cond_spanning_tasks_carries_the_dead_branch_over():
    """The untaken branch's dead tensor crosses to the other task, pulled (task 1 from the
    master's task) or returned in the RunGraph reply (task 1 to the master's task)."""
    from conftest import ServerProcesses, free_port
    addresses = ["localhost:%d" % free_port(), "localhost:%d" % free_port()]
    servers = ServerProcesses("local|" + ";".join(addresses), "local", 2)
    try:
        x = tf.placeholder(tf.float32, [], name="x")
        with tf.device("/job:local/task:0"):
            y = tf.cond(x > 0, lambda: x * 2.0, lambda: x - 1.0)
        with tf.device("/job:local/task:1"):
            z = y + 100.0
            _, only_positive = control_flow_ops.switch(x, x > 0)
            w = only_positive * 3.0
        with tf.device("/job:local/task:0"):
            v = tf.cond(x > 0, lambda: w + 1.0, lambda: tf.identity(x))
            dead = w + 1.0
        with tf.Session("grpc://" + addresses[0]) as sess:
            assert sess.run(z, {x: 2.0}) == 104.0 and sess.run(z, {x: -2.0}) == 97.0
            assert sess.run(v, {x: 1.0}) == 4.0 and sess.run(v, {x: -1.0}) == -1.0
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Retval\[0\] does not have value"):
                sess.run(dead, {x: -1.0}, options=tf.RunOptions(timeout_in_ms=30000))
            assert sess.run(v, {x: 5.0}) == 16.0
    finally:
        servers.stop()
