"""The Python API of the elementwise functions (math_fn_ops.py: tf.sin ... tf.zeta, tf.math.*,
tf.bitwise.*): the same expressions, with TensorFlow 1's names and argument names, evaluated
by TensorFlow (tf_side/api_expressions.py) and by us, values and errors compared."""
import math

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_cases

rng = np.random.default_rng(7)
ARRAYS = {
    "x": np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3.7, -0.4], np.float32),
    "u": rng.uniform(-0.99, 0.99, 6).astype(np.float32),  # inside (-1, 1)
    "p": rng.uniform(0.5, 4, 6),  # positive float64
    "q": rng.uniform(0.5, 4, 6),
    "h": np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.4999, 7.0], np.float64),  # halves
    "z": np.array([1.0, 0.0, -0.0, 2.0, 0.0, 4.0, 0.0, 1.0, 0.0], np.float32),
    "i": np.array([7, -7, 9, -9, 0, 2147483647, -2147483648], np.int32),
    "j": np.array([2, 2, -4, -4, 3, 5, -1], np.int32),
    "s": np.array([0, 1, 3, 31, 5, 2, 30], np.int32),  # shift counts
    "b1": np.array([True, True, False, False]),
    "b2": np.array([True, False, True, False]),
    "n": np.array([[0.0], [1.0], [2.0]]),
    "m": np.array([[1.0, 2.0, -3.0], [0.5, -np.inf, 700.0], [-np.inf, -np.inf, -np.inf], [0.0, 0.0, 0.0]], np.float32),
    "bm": np.array([[True, False, True], [True, True, True]]),
}

EXPRESSIONS = [
    "tf.sin(x)", "tf.cos(x, name='c')", "tf.tan(x)", "tf.asin(u)", "tf.acos(x=u)", "tf.atan(x)", "tf.sinh(x)",
    "tf.cosh(x)", "tf.asinh(x)", "tf.acosh(p + 1)", "tf.atanh(u)", "tf.floor(x)", "tf.ceil(x)", "tf.round(h)",
    "tf.round(i)", "tf.rint(h)", "tf.expm1(x)", "tf.log1p(p)", "tf.erf(x)", "tf.erfc(x)", "tf.lgamma(p)",
    "tf.digamma(p)", "tf.is_finite(x)", "tf.is_inf(x)", "tf.is_nan(x)", "tf.math.is_nan(x)", "tf.math.sin(x)",
    "tf.atan2(y=x, x=z)", "tf.math.atan2(p, q)", "tf.truncatediv(i, j)", "tf.truncatemod(i, j)", "tf.math.mod(i, j)",
    "tf.div_no_nan(x, z)", "tf.math.xdivy(z, x)", "tf.math.xlogy(z, x)", "tf.math.xlog1py(p, q)",
    "tf.logical_xor(b1, b2)", "tf.math.logical_xor(b1, b2)", "tf.bitwise.bitwise_and(i, j)",
    "tf.bitwise.bitwise_or(i, j)", "tf.bitwise.bitwise_xor(x=i, y=j)", "tf.bitwise.left_shift(i, s)",
    "tf.bitwise.right_shift(i, s)", "tf.bitwise.invert(i)", "tf.igamma(a=p, x=q)", "tf.igammac(p, q)",
    "tf.zeta(x=p + 1, q=q)", "tf.polygamma(a=n, x=p)", "tf.math.floormod(i, j)", "tf.math.reciprocal(p)",
    "tf.math.lgamma(p)", "tf.math.round(x)",
    # Reductions with TF1's spellings.
    "tf.reduce_all(bm)", "tf.reduce_all(bm, axis=1)", "tf.reduce_any(bm, reduction_indices=[0], keep_dims=True)",
    "tf.math.reduce_any(bm, -1, keepdims=True)", "tf.reduce_logsumexp(m)", "tf.reduce_logsumexp(m, 1)",
    "tf.reduce_logsumexp(m, axis=[0, 1], keep_dims=True)", "tf.math.reduce_logsumexp(m, reduction_indices=0)",
    "tf.count_nonzero(i)", "tf.count_nonzero(m, axis=1, keepdims=True, dtype=tf.int32)",
    "tf.count_nonzero(bm, reduction_indices=[1])", "tf.math.count_nonzero(input=z)",
    "tf.gradients(tf.reduce_logsumexp(m[:2, :1] * m[:1], 1), m)[0]",
    "tf.gradients(tf.stop_gradient(p) * p + tf.sin(p), p)[0]",
    # Functions TensorFlow composes from ops.
    "tf.math.divide_no_nan(x, z)", "tf.math.reciprocal_no_nan(z)", "tf.log_sigmoid(x)", "tf.math.log_sigmoid(m)",
    "tf.scalar_mul(2.5, x)", "tf.lbeta(tf.expand_dims(p, 0) + tf.expand_dims(q, 1))",
    "tf.math.reduce_variance(m[:2], axis=1)",
    "tf.math.reduce_std(p, keepdims=True)", "tf.is_non_decreasing(i)", "tf.is_strictly_increasing(j)",
    "tf.math.is_non_decreasing(m[:1, :1])", "tf.debugging.is_strictly_increasing(tf.constant([1, 2, 2]))",
    "tf.math.polyval([p, q, 2.0], p)", "tf.math.polyval([p, q, np.float64(2)], p)", "tf.math.polyval([], x)",
    "tf.realdiv(p, q)", "tf.math.softplus(x)", "tf.math.top_k(p, 2)[1]",
    "tf.debugging.assert_all_finite(p, 'ok')", "tf.math.multiply_no_nan(x, z)",
    "tf.betainc(p, q, tf.constant(0.25, tf.float64))", "tf.math.betainc(a=p, b=2.0 * q, x=q / 5)",
    # Errors: a dtype the op does not take, at graph construction.
    "tf.sin(i)", "tf.bitwise.bitwise_and(x, x)",
]


# TensorFlow refuses a wrong dtype while building the graph with TypeError; tensorweave refuses it
# then too, as InvalidArgumentError naming the node, the attr and the dtype (the convention of
# every op here).
ERROR_EQUIVALENTS = {"TypeError": "InvalidArgumentError"}


def ours(expr):
    g = tf.Graph()
    try:
        with g.as_default():
            names = {k: tf.constant(v, name=k) for k, v in ARRAYS.items()}
            result = eval(expr, {"tf": tf, "np": np}, names)  # noqa: S307 - the test's own expressions
            with tf.Session(graph=g) as sess:
                return np.asarray(sess.run(result)), None
    except Exception as e:  # noqa: BLE001 - compared with TensorFlow's error
        return None, f"{type(e).__name__}: {e}"


def test_expressions_match_tensorflow(tmp_path):
    python = require_tensorflow("test_expressions_match_tensorflow")
    theirs = run_tf_cases(python, "api_expressions.py", tmp_path, ARRAYS, EXPRESSIONS)
    failures = []
    for i, expr in enumerate(EXPRESSIONS):
        value, error = ours(expr)
        if f"c{i}_error" in theirs.files:
            their_error = str(theirs[f"c{i}_error"])
            their_class = their_error.split(":")[0]
            wanted = ERROR_EQUIVALENTS.get(their_class, their_class)
            if error is None or not error.startswith(wanted + ":"):
                failures.append(f"{expr}: TensorFlow raised {their_error!r}, ours {error or 'ran'}")
            elif their_class == "TypeError" and "DataType " in their_error and \
                    their_error.split("DataType ")[1].split()[0] not in error:
                failures.append(f"{expr}: our error {error!r} does not name the dtype TensorFlow names")
            continue
        expected = theirs[f"c{i}"]
        if error is not None:
            failures.append(f"{expr}: ours raised {error}")
        elif value.dtype != expected.dtype or value.shape != expected.shape:
            failures.append(f"{expr}: {value.dtype}{value.shape} vs TensorFlow's {expected.dtype}{expected.shape}")
        elif np.issubdtype(value.dtype, np.floating):
            if not np.allclose(value, expected, rtol=8 * np.finfo(value.dtype).eps, atol=0, equal_nan=True):
                failures.append(f"{expr}: {value} vs TensorFlow's {expected}")
        elif not np.array_equal(value, expected):
            failures.append(f"{expr}: {value} vs TensorFlow's {expected}")
    assert not failures, "\n".join(failures)


def test_erf_limits_at_infinity():
    """Documented deviation (RELIABILITY.md): TensorFlow's float64 Erf gives NaN beyond ~1e154;
    ours gives the limit, as math.erf does."""
    xs = np.array([np.inf, -np.inf, 1e200, -1e300, 6.0], np.float64)
    with tf.Session() as sess:
        got = sess.run(tf.erf(xs))
    np.testing.assert_array_equal(got, [math.erf(v) for v in xs])


def test_integer_division_by_zero_names_the_error():
    """TensorFlow 2.20 reports these as InternalError ("Unexpected error in binary operator"); ours
    is the InvalidArgumentError its Div gives."""
    with tf.Session() as sess:
        for fn in (tf.truncatediv, tf.truncatemod):
            with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
                sess.run(fn(tf.constant([3, 4]), tf.constant([1, 0])))
