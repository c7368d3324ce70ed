"""tf.py_func, tf.numpy_function and tf.py_function in graph mode (PyFunc, PyFuncStateless,
EagerPyFunc): values, dtypes and TensorFlow's error texts and classes compared with
TensorFlow on the same cases (tf_side/py_func_cases.py); the ops' attrs; stateful calls per
run; gradients as TensorFlow's (None through py_func); a server process that does not hold
the function failing the step with a clear error."""
import json
import os
import sys

import numpy as np
import pytest

import tensorweave as tf
from conftest import ServerProcesses, free_port
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script
from tw_tasks import TW, TensorweaveTasks

sys.path.insert(0, TF_SIDE_DIR)
import py_func_cases as cases  # noqa: E402


def test_values_dtypes_and_errors_match_tensorflow():
    python = require_tensorflow("test_values_dtypes_and_errors_match_tensorflow")
    theirs = json.loads(run_tf_script(python, "py_func_cases.py").strip().splitlines()[-1])
    ours = cases.results(tf)
    assert sorted(ours) == sorted(theirs)
    for name in theirs:
        assert ours[name] == theirs[name], (name, ours[name], theirs[name])


def test_ops_carry_tensorflows_attrs():
    with tf.Graph().as_default() as g:
        x = tf.constant([1.0, 2.0])
        a = tf.py_func(lambda v: v, [x, tf.constant(1)], [tf.float32, tf.int64], name="f")
        b = tf.compat.v1.py_func(lambda v: v, [x], tf.float32, stateful=False)
        c = tf.py_function(lambda v: v, [x], tf.float32)
        assert [t.op.type for t in (a[0], b, c)] == ["PyFunc", "PyFuncStateless", "EagerPyFunc"]
        node = {n.name: n for n in g.as_graph_def().node}["f"]
        assert node.attr["token"].s.startswith(b"pyfunc_")
        assert list(node.attr["Tin"].list.type) == [tf.float32.as_datatype_enum, tf.int32.as_datatype_enum]
        assert list(node.attr["Tout"].list.type) == [tf.float32.as_datatype_enum, tf.int64.as_datatype_enum]
        assert a[0].shape.ndims is None and b.shape.ndims is None


def test_no_outputs_gives_the_operation_and_runs_it():
    seen = []
    with tf.Graph().as_default():
        op = tf.py_func(lambda v: seen.append(v.tolist()), [tf.constant([3, 4])], [])
        assert isinstance(op, tf.Operation)
        with tf.Session() as sess:
            sess.run(op)
    assert seen == [[3, 4]]


def test_stateful_function_runs_on_every_step():
    calls = []

    def count(v):
        calls.append(1)
        return np.float32(len(calls))

    with tf.Graph().as_default():
        y = tf.py_func(count, [tf.constant(0.0)], tf.float32)
        with tf.Session() as sess:
            assert [sess.run(y) for _ in range(3)] == [1.0, 2.0, 3.0]


def test_large_input_reaches_the_function_and_comes_back():
    big = np.arange(1 << 20, dtype=np.float64).reshape(1024, 1024)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float64, [1024, 1024])
        y = tf.py_func(lambda a: a.T.copy(), [p], tf.float64)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {p: big}), big.T)


def test_gradients_as_tensorflow():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        # TensorFlow: ops.NotDifferentiable("PyFunc") and ("PyFuncStateless").
        assert tf.gradients(tf.py_func(lambda v: v, [x], tf.float32), [x]) == [None]
        assert tf.gradients(tf.py_func(lambda v: v, [x], tf.float32, stateful=False), [x]) == [None]
        # TensorFlow differentiates EagerPyFunc with an eager GradientTape; there is none here,
        # so tf.gradients fails naming the op.
        with pytest.raises(tf.errors.InvalidArgumentError, match="op EagerPyFunc .* has no gradient function"):
            tf.gradients(tf.py_function(lambda v: v * v, [x], tf.float32), [x])


def test_function_missing_in_a_python_server_process_fails_clearly():
    spec = "worker|localhost:%d" % free_port()
    servers = ServerProcesses(spec, "worker", 1)
    try:
        with tf.Graph().as_default():
            with tf.device("/job:worker/task:0"):
                y = tf.py_func(lambda v: v, [tf.constant(1.0)], tf.float32)
            with tf.Session("grpc://" + spec.split("|")[1]) as sess:
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match=r"Could not find callback with key=pyfunc_\d+ in the registry"):
                    sess.run(y)
    finally:
        servers.stop()


@pytest.mark.skipif(not os.path.exists(TW), reason="needs the tw tool (build/tools/tw)")
def test_tw_server_task_fails_saying_where_the_function_lives():
    address = "localhost:%d" % free_port()
    tasks = TensorweaveTasks("worker|" + address, {("worker", 0): address})
    try:
        with tf.Graph().as_default():
            with tf.device("/job:worker/task:0"):
                y = tf.py_func(lambda v: v, [tf.constant(1.0)], tf.float32)
            with tf.Session("grpc://" + address) as sess:
                with pytest.raises(tf.errors.FailedPreconditionError,
                                   match="lives in the client process that built the graph"):
                    sess.run(y)
                # The task still serves.
                assert sess.run(tf.constant(2.0) * 3.0) == 6.0
    finally:
        tasks.stop()
