"""TensorFlow's side of the API expression tests (test_math_fns.py): evaluates each Python
expression of CASES.json with `tf` bound to tf.compat.v1 (graph mode) and every array of
IN.npz bound to a tf.constant of its name (with a 4th argument "placeholders": to a
placeholder_with_default of it, whose value is not known while building), in a new graph
and session. Writes the value of case i as "c<i>" to OUT.npz, or its error as "c<i>_error":
"<class name>: <message>".
    api_expressions.py IN.npz CASES.json OUT.npz [placeholders]"""
import json
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

arrays = np.load(sys.argv[1])
cases = json.load(open(sys.argv[2]))
out = {}
for i, expr in enumerate(cases):
    g = tf1.Graph()
    try:
        with g.as_default():
            if len(sys.argv) > 4 and sys.argv[4] == "placeholders":
                names = {k: tf1.placeholder_with_default(arrays[k], arrays[k].shape, name=k) for k in arrays.files}
            else:
                names = {k: tf1.constant(arrays[k], name=k) for k in arrays.files}
            # Compiled as if from this file: TensorFlow 2.20 crashes (SIGSEGV) reporting a failed
            # node whose traceback points into "<string>".
            code = compile(expr, __file__, "eval")
            result = eval(code, {"tf": tf1, "np": np}, names)  # noqa: S307 - the test's own expressions
            with tf1.Session(graph=g) as sess:
                out[f"c{i}"] = np.asarray(sess.run(result))
    except Exception as e:  # noqa: BLE001 - the error is the result to compare
        out[f"c{i}_error"] = np.array(f"{type(e).__name__}: {getattr(e, 'message', str(e))}")
np.savez(sys.argv[3], **out)
