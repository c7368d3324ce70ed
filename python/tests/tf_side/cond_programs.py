"""Programs with tf.cond and their gradients, written against the TF1 API so that the same
code builds them with tensorweave (test_control_flow_cond.py) and with TensorFlow
(`python cond_programs.py OUT.json` with TensorFlow's python, control flow v1)."""
import json
import sys

import numpy as np

POINTS = [[1.0, -1.0, 2.0], [-3.0, 0.5, 1.0], [0.1, 0.2, -0.1], [-0.5, 0.0, 0.3], [0.7, 0.6, -2.5]]
W = [1.5, -2.0, 0.25]


def nested(tf, x, flag):
    """A nested cond reading x on every branch; returns (y, dy/dx)."""
    w = tf.constant(W, dtype=tf.float64)
    s = tf.reduce_sum(x * w)
    y = tf.cond(s > 0.0,
                lambda: tf.reduce_sum(tf.tanh(x) * w) + s,
                lambda: tf.cond(s < -1.0, lambda: tf.reduce_sum(tf.square(x)),
                                lambda: tf.reduce_sum(tf.sin(x)) * 3.0))
    return y, tf.gradients(y, x)[0]


def one_sided(tf, x, flag):
    """x only in the true branch: its gradient is zeros (not None) when the flag is false."""
    y = tf.cond(flag, lambda: tf.reduce_sum(x * x * x), lambda: tf.constant(1.0, tf.float64))
    return y, tf.gradients(y, x)[0]


def tuple_outputs(tf, x, flag):
    """Two outputs, both differentiated; one branch returns x itself."""
    a, b = tf.cond(flag, lambda: (x * 2.0, tf.reduce_sum(tf.exp(x))), lambda: (x, tf.reduce_sum(x) * 0.5))
    loss = tf.reduce_sum(a * a) + b
    return loss, tf.gradients(loss, x)[0]


PROGRAMS = {"nested": nested, "one_sided": one_sided, "tuple_outputs": tuple_outputs}


def run_all(tf, session_factory):
    """{program: [[y, dy/dx] per (point, flag)]}."""
    results = {}
    for name, build in PROGRAMS.items():
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float64, [3], name="x")
            flag = tf.placeholder(tf.bool, [], name="flag")
            y, dx = build(tf, x, flag)
            with session_factory(graph) as sess:
                results[name] = []
                for point in POINTS:
                    for f in (True, False):
                        yv, dxv = sess.run([y, dx], {x: np.array(point), flag: f})
                        results[name].append([float(yv), np.asarray(dxv).tolist()])
    return results


if __name__ == "__main__":
    import tensorflow as tensorflow_module
    tf1 = tensorflow_module.compat.v1
    tf1.disable_eager_execution()
    tf1.disable_control_flow_v2()
    out = run_all(tf1, lambda g: tf1.Session(graph=g))
    with open(sys.argv[1], "w") as f:
        json.dump(out, f)
