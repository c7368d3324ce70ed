"""tf.py_func / tf.numpy_function / tf.py_function cases built by the same code on both sides:
`results(tf)` takes `tf` (tensorweave, or TensorFlow with v1 behaviour) and returns name ->
{"value": list, "dtype": str} or {"error": class name, "message": the first line that is not
TensorFlow's node header,
function tokens as pyfunc_N}. As a script with TensorFlow's python it prints that as JSON."""
import json
import re

import numpy as np


def _raise(exc):
    raise exc


def cases(tf):
    v1 = tf.compat.v1
    x = v1.placeholder(tf.float32, [None], name="x")
    n = v1.placeholder(tf.int32, [], name="n")
    return {
        "double": v1.py_func(lambda a: a * 2, [x], tf.float32),
        # Cast: float32 times an int32 scalar is float64 or float32 depending on the NumPy version.
        "two_inputs": v1.py_func(lambda a, b: (a * b).astype(np.float32), [x, n], tf.float32),
        "returns_float64": v1.py_func(lambda a: a.astype(np.float64), [x], tf.float32),
        "returns_python_int": v1.py_func(lambda a: 3, [x], tf.int32),
        "list_tout": v1.py_func(lambda a: [np.int64(3), a], [x], [tf.int64, tf.float32]),
        "too_many": v1.py_func(lambda a: (a, a), [x], [tf.float32]),
        "too_few": v1.py_func(lambda a: a, [x], [tf.float32, tf.float32]),
        "zero_division": v1.py_func(lambda a: 1 / 0, [x], tf.float32),
        "value_error": v1.py_func(lambda a: _raise(ValueError("bad thing")), [x], tf.float32),
        "stop_iteration": v1.py_func(lambda a: _raise(StopIteration()), [x], tf.float32),
        "not_implemented": v1.py_func(lambda a: _raise(NotImplementedError("later")), [x], tf.float32),
        "bytes": v1.py_func(lambda a: b"hi", [x], tf.string),
        "str_list": v1.py_func(lambda a: np.array(["ab", "c"]), [x], tf.string),
        "string_input": v1.py_func(lambda s: s + b"!", [tf.constant(b"yo")], tf.string),
        "bool": v1.py_func(lambda a: a > 1, [x], tf.bool),
        "stateless": v1.py_func(lambda a: a + 1, [x], tf.float32, stateful=False),
        "numpy_function": tf.numpy_function(lambda a: a + 1, [x], tf.float32),
        "py_function": tf.py_function(lambda a: a.numpy() + 1, [x], tf.float32),
        "py_function_casts": tf.py_function(lambda a: a.numpy().astype(np.float64), [x], tf.float32),
        "py_function_int": tf.py_function(lambda a: 3, [x], tf.float32),
        "py_function_raises": tf.py_function(lambda a: 1 / 0, [x], tf.float32),
        "in_graph": v1.py_func(lambda a: a.sum(), [x], tf.float32) * 2.0,
    }, {x: np.array([1.0, 2.0], np.float32), n: 3}


def _dtype_name(value):
    dtype = np.asarray(value).dtype
    return "string" if dtype.kind in "OSU" else str(dtype)


def results(tf):
    out = {}
    with tf.Graph().as_default():
        fetches, feed = cases(tf)
        with tf.compat.v1.Session() as sess:
            for name, t in fetches.items():
                try:
                    value = sess.run(t, feed)
                except tf.errors.OpError as e:
                    lines = [ln for ln in str(e.message).splitlines() if ln.strip()
                             and not ln.startswith(("Graph execution error", "Detected at", "Node:", "  "))]
                    # Tokens count the process's functions: pyfunc_N on both sides.
                    message = re.sub(r"pyfunc_\d+", "pyfunc_N", lines[0] if lines else "")
                    # Where tensorweave names the node (TensorFlow does on other lines).
                    message = re.sub(r"^node '[^']*' \(\w+\): ", "", message)
                    out[name] = {"error": type(e).__name__, "message": message}
                    continue
                values = value if isinstance(value, list) else [value]
                out[name] = {"value": [np.asarray(v).tolist() for v in values],
                             "dtype": [_dtype_name(v) for v in values]}
    for k, r in out.items():  # bytes are not JSON
        if "value" in r:
            r["value"] = json.loads(json.dumps(r["value"], default=lambda b: b.decode("latin1")))
    return out


if __name__ == "__main__":
    import tensorflow as tf
    tf.compat.v1.disable_eager_execution()
    print(json.dumps(results(tf)))
