"""Loops differentiated on both sides (test_control_flow_while.py here, tf_side/while_grads.py
in TensorFlow with control flow v1): the iteration count is fed, so known only at run time."""
import numpy as np

RUNS = (0, 1, 4, 9)


def build(tf, tf1):
    """Returns (feeds: name -> placeholder, the gradients to fetch)."""
    n = tf1.placeholder(tf.int32, [], name="n")
    x = tf1.placeholder(tf.float64, [3], name="x")
    w = tf1.placeholder(tf.float64, [3, 3], name="w")

    def body(i, v, total):
        h = tf.tanh(tf.reshape(tf.matmul(w, tf.reshape(v, [3, 1])), [3]) + x)
        total = total + tf.reduce_sum(h * h)
        return i + 1, h, total

    _, v, total = tf1.while_loop(lambda i, v, t: i < n, body, [tf.constant(0), x * 0.5, tf.constant(0.0, tf.float64)])
    loss = total + tf.reduce_sum(v * x)
    return {"n": n, "x": x, "w": w}, tf1.gradients(loss, [x, w]) + [loss]


def feeds(k):
    rng = np.random.default_rng(1800 + k)
    return {"n": np.int32(k), "x": rng.standard_normal(3), "w": rng.standard_normal((3, 3)) * 0.6}
