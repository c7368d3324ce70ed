"""tf.Assert, the tf.assert_* family, tf.check_numerics and tf.verify_tensor_all_finite
(check_ops.py, kernels/cpu/check_kernels.cc): the same expressions run by TensorFlow
(tf_side/api_expressions.py, inputs as placeholders with defaults, so the checks run in the
graph) and by us. A failing check must raise InvalidArgumentError with TensorFlow's message
text, character for character: the user's message and the values as TensorFlow summarizes
them. Checks on values known while building fail at once, as TensorFlow's do."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script, tf_env

ARRAYS = {
    "x": np.array([1.5, -2.0, 3.25, 1e10, 0.1, 7.0], np.float32),
    "pos": np.array([1.0, 2.5, 1e-3], np.float64),
    "i": np.array([1, 2, 3], np.int32),
    "j": np.array([1, 2, 4], np.int32),
    "m": np.arange(12, dtype=np.int64).reshape(2, 2, 3),
    "nan": np.array([1.0, np.nan, 3.0], np.float32),
    "inf": np.array([1.0, -np.inf, 3.0], np.float64),
    "both": np.array([np.inf, np.nan], np.float32),
    "e": np.zeros((0, 3), np.float32),
    "third": np.array(1 / 3, np.float32),
}

# Each is run for its value; a failing check's error is the result compared.
EXPRESSIONS = [
    "tf.Assert(tf.reduce_all(x > 0), ['x must be positive', x, tf.constant(True), m, tf.constant(['a\\n', 'b'])], "
    "summarize=4)",
    "tf.Assert(x[0] > 0, [x, third, m, e])",
    "tf.Assert(tf.reduce_all(x > -5), [x])",
    "tf.Assert(tf.reduce_all(x > 0), [x, m], summarize=-1)",
    "tf.assert_equal(i, j, message='boom')", "tf.assert_equal(i, i)", "tf.assert_none_equal(i, j)",
    "tf.assert_less(i, j)", "tf.assert_less_equal(j, i, summarize=1)", "tf.assert_greater(j, i)",
    "tf.assert_greater_equal(i, j, data=['custom', i])", "tf.assert_positive(x)", "tf.assert_positive(pos)",
    "tf.assert_negative(x, message='neg')", "tf.assert_non_negative(x)", "tf.assert_non_positive(i, name='np')",
    "tf.debugging.assert_equal(m, m)", "tf.debugging.assert_less(x, 0.0)",
    "tf.check_numerics(x, 'fine')", "tf.check_numerics(nan, 'bad x')", "tf.check_numerics(inf, 'bad inf')",
    "tf.check_numerics(both, 'both')", "tf.verify_tensor_all_finite(nan, 'vv')",
    "tf.debugging.check_numerics(x * 2, message='m')",
    "tf.gradients(tf.check_numerics(pos, 'g') * tf.constant(np.inf, tf.float64), pos)[0]",
]


def _check_text(message):
    """The part of an error message both systems must agree on: from "assertion failed:", or
    the line of a CheckNumerics failure; without TensorFlow's or our node decorations."""
    message = re.sub(r"^node '[^']*' \([^)]*\): ", "", message)  # ours
    found = re.search(r"assertion failed: [^\n]*", message) or re.search(r"[^\n]* : Tensor had [^\n]*", message)
    return found.group(0) if found else message


def ours(expr):
    g = tf.Graph()
    with g.as_default():
        names = {k: tf.placeholder_with_default(v, v.shape, name=k) for k, v in ARRAYS.items()}
        result = eval(expr, {"tf": tf, "np": np}, names)  # noqa: S307 - the test's own expressions
        with tf.Session(graph=g) as sess:
            try:
                value = sess.run(result)
                return None if value is None else np.asarray(value), None
            except tf.errors.OpError as e:
                return None, f"{type(e).__name__}: {_check_text(e.message)}"


def test_checks_match_tensorflow(tmp_path):
    python = require_tensorflow("test_checks_match_tensorflow")
    np.savez(tmp_path / "in.npz", **ARRAYS)
    (tmp_path / "cases.json").write_text(json.dumps(EXPRESSIONS))
    run_tf_script(python, "api_expressions.py", str(tmp_path / "in.npz"), str(tmp_path / "cases.json"),
                  str(tmp_path / "out.npz"), "placeholders")
    theirs = np.load(tmp_path / "out.npz")
    failures, failed_checks = [], 0
    for i, expr in enumerate(EXPRESSIONS):
        value, error = ours(expr)
        if f"c{i}_error" in theirs.files:
            their = str(theirs[f"c{i}_error"])
            their = their.split(":")[0] + ": " + _check_text(their)
            failed_checks += 1
            if error != their:
                failures.append(f"{expr}:\n  TensorFlow: {their!r}\n  ours:       {error!r}")
        elif error is not None:
            failures.append(f"{expr}: ours failed: {error}")
        elif f"c{i}" in theirs.files and value is not None and not np.array_equal(value, theirs[f"c{i}"],
                                                                                  equal_nan=True):
            failures.append(f"{expr}: {value} vs TensorFlow's {theirs[f'c{i}']}")
    assert failed_checks >= 15, failed_checks  # the failing checks are most of the cases
    assert not failures, "\n".join(failures)


def test_values_known_while_building_fail_at_once():
    """As TensorFlow (its static check): the message is the data, one item a line."""
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            tf.assert_equal([1, 2], [1, 3], message="m")
        assert e.value.message == "m\nCondition x == y did not hold element-wise:\nx (assert_equal/x:0) = \n[1 2]\n" \
                                  "y (assert_equal/y:0) = \n[1 3]"
        with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x > 0 did not hold"):
            tf.assert_positive([1.0, -1.0])
        assert tf.assert_positive([1.0, 2.0]).type == "Assert"  # holds: the op is built all the same


def test_assert_condition_must_be_a_scalar():
    with tf.Graph().as_default():
        c = tf.placeholder(tf.bool)
        op = tf.Assert(c, ["x"])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"In\[0\] should be a scalar: \[2\]"):
                sess.run(op, {c: [True, True]})


def test_print_writes_what_tensorflow_writes():
    """tf.Print: the same lines on stderr (message, data summarized, first_n honoured, also on
    the gradient's path) and the same values."""
    python = require_tensorflow("test_print_writes_what_tensorflow_writes")
    script = os.path.join(TF_SIDE_DIR, "print_program.py")
    runs = {}
    for side, exe, env in (("tf", python, tf_env()), ("tw", sys.executable, dict(os.environ))):
        done = subprocess.run([exe, script, side], capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        lines = [ln for ln in done.stderr.splitlines()
                 if ln.startswith(("x is: ", "first twice ", "no data", "in grad "))]
        runs[side] = (lines, done.stdout)
    assert runs["tw"] == runs["tf"]
    assert len(runs["tf"][0]) == 3 + 2 + 3 + 1, runs["tf"][0]


def test_add_check_numerics_ops_names_the_first_bad_tensor():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        y = tf.log(x, name="log_x")
        z = tf.multiply(y, 2.0, name="twice")
        checks = tf.add_check_numerics_ops()
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run([z, checks], {x: [1.0, np.e]})[0], [0.0, 2.0], rtol=1e-6)
            with pytest.raises(tf.errors.InvalidArgumentError, match="log_x:0 : Tensor had NaN values"):
                sess.run([z, checks], {x: [1.0, -1.0]})
    with tf.Graph().as_default():
        tf.cond(tf.constant(True), lambda: tf.constant(1.0), lambda: tf.constant(2.0))
        with pytest.raises(ValueError, match="not compatible with TensorFlow control flow"):
            tf.add_check_numerics_ops()


def test_rank_type_and_tolerance_asserts():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        assert tf.assert_rank(x, 2).type == "NoOp" and tf.assert_rank_at_least(x, 1).type == "NoOp"
        assert tf.assert_rank_in(x, [1, 2]).type == "NoOp"
        with pytest.raises(ValueError, match=r"Tensor x:0 must have rank 3.  Received rank 2"):
            tf.assert_rank(x, 3)
        with pytest.raises(ValueError, match=r"Tensor x:0 must have rank at least 3.  Received rank 2"):
            tf.debugging.assert_rank_at_least(x, 3)
        with pytest.raises(ValueError, match=r"must have rank in \(0, 1\)"):
            tf.assert_rank_in(x, [0, 1])
        with pytest.raises(ValueError, match="Rank must be a scalar"):
            tf.assert_rank(x, [2])
        with pytest.raises(ValueError, match="Expected scalar shape for x:0"):
            tf.assert_scalar(x)
        with pytest.raises(TypeError, match="must be of type tf.int32; got tf.float32"):
            tf.assert_type(x, tf.int32)
        with pytest.raises(TypeError, match='Expected "x" to be integer type'):
            tf.assert_integer(x)
        assert tf.assert_same_float_dtype([x, tf.zeros([2])]) == tf.float32
        with pytest.raises(ValueError):
            tf.assert_same_float_dtype([x, tf.zeros([2], tf.float64)])
        with pytest.raises(TypeError, match="proper"):
            tf.assert_proper_iterable(np.zeros(3))
        tf.assert_proper_iterable([1, 2])
        unknown = tf.placeholder(tf.float32, name="unknown")
        rank_check = tf.assert_rank(unknown, 2, message="need a matrix")
        near = tf.assert_near(unknown, tf.ones([2]), atol=0.01, rtol=0.0)
        with tf.Session() as sess:
            sess.run(rank_check, {unknown: np.zeros((2, 2))})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"\[need a matrix\] \[Tensor unknown:0 must have rank\] \[2\]"):
                sess.run(rank_check, {unknown: np.zeros(3)})
            sess.run(near, {unknown: [1.005, 0.995]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="x and y not equal to tolerance"):
                sess.run(near, {unknown: [1.02, 1.0]})
