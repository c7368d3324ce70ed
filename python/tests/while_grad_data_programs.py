"""Loops whose iteration count depends on the data (nested ones too), differentiated on both sides
(test_while_grad.py here, tf_side/while_grad_data.py in TensorFlow with control flow v1 and
its stack-based loop gradient). Each builder returns (feeds: name -> placeholder, fetches)."""
import numpy as np


def build_until_norm(tf, tf1):
    """Grows v until its norm passes a fed limit: the count depends on x, w and the limit."""
    x = tf1.placeholder(tf.float64, [3], name="x")
    w = tf1.placeholder(tf.float64, [3, 3], name="w")
    limit = tf1.placeholder(tf.float64, [], name="limit")

    def body(i, v, path):
        v = tf.reshape(tf.matmul(w, tf.reshape(v, [3, 1])), [3]) + tf.sin(v) * tf.cast(i, tf.float64) + x
        return i + 1, v, path + tf.reduce_sum(v * v) * 0.01

    _, v, path = tf1.while_loop(lambda i, v, p: tf.norm(v) < limit, body,
                                [tf.constant(0), x, tf.constant(0.0, tf.float64)])
    loss = tf.reduce_sum(tf.tanh(v)) + path
    return {"x": x, "w": w, "limit": limit}, tf1.gradients(loss, [x, w]) + [loss]


def build_maximum_iterations(tf, tf1):
    """A float32 loop cut by maximum_iterations before its own condition stops it."""
    x = tf1.placeholder(tf.float32, [2], name="x")
    cap = tf1.placeholder(tf.int32, [], name="cap")
    v = tf1.while_loop(lambda v: tf.reduce_sum(v) < 1e6, lambda v: v * 1.5 + tf.cos(v), [x],
                       maximum_iterations=cap)
    loss = tf.reduce_sum(v * v)
    return {"x": x, "cap": cap}, tf1.gradients(loss, [x]) + [loss]


def build_no_back_prop(tf, tf1):
    """back_prop=False: the loop is a constant for tf.gradients; x reaches the loss around it too."""
    x = tf1.placeholder(tf.float64, [], name="x")
    v = tf1.while_loop(lambda v: v < 10.0, lambda v: v * 2.0 + 0.25, [x], back_prop=False)
    loss = v * x + x * x
    return {"x": x}, tf1.gradients(loss, [x]) + [loss]


def build_nested(tf, tf1):
    """An inner loop in the outer one's body, running i + 1 times on the outer counter i, both
    reading w and x from outside."""
    x = tf1.placeholder(tf.float64, [3], name="x")
    w = tf1.placeholder(tf.float64, [3, 3], name="w")
    n = tf1.placeholder(tf.int32, [], name="n")

    def inner(i, v):
        return tf1.while_loop(lambda j, u: j <= i, lambda j, u: (j + 1, tf.tanh(
            tf.reshape(tf.matmul(w, tf.reshape(u, [3, 1])), [3]) + x)), [tf.constant(0), v])[1]

    def body(i, v, total):
        v = inner(i, v * 0.9 + x)
        return i + 1, v, total + tf.reduce_sum(v * v * x)

    _, v, total = tf1.while_loop(lambda i, v, t: i < n, body, [tf.constant(0), x, tf.constant(0.0, tf.float64)])
    loss = total + tf.reduce_sum(tf.sin(v))
    return {"x": x, "w": w, "n": n}, tf1.gradients(loss, [x, w]) + [loss]


def build_map_of_loops(tf, tf1):
    """tf.map_fn (a loop over TensorArrays) of a function holding a data-dependent loop."""
    xs = tf1.placeholder(tf.float64, [4, 2], name="xs")
    w = tf1.placeholder(tf.float64, [2], name="w")

    def grow(row):
        return tf1.while_loop(lambda u: tf.reduce_sum(u * u) < 25.0, lambda u: u * (1.5 + tf.abs(w)) + w, [row])

    loss = tf.reduce_sum(tf.cos(tf1.map_fn(grow, xs)))
    return {"xs": xs, "w": w}, tf1.gradients(loss, [xs, w]) + [loss]


PROGRAMS = {"until_norm": build_until_norm, "maximum_iterations": build_maximum_iterations,
            "no_back_prop": build_no_back_prop, "nested": build_nested, "map_of_loops": build_map_of_loops}


def feeds(name, k):
    rng = np.random.default_rng(1900 + k)
    if name == "until_norm":
        return {"x": rng.standard_normal(3) * 0.3, "w": rng.standard_normal((3, 3)) * 0.5,
                "limit": np.float64(2.0 + 3 * k)}
    if name == "maximum_iterations":
        return {"x": (rng.standard_normal(2) * 0.2).astype(np.float32), "cap": np.int32(k)}
    if name == "nested":
        return {"x": rng.standard_normal(3) * 0.5, "w": rng.standard_normal((3, 3)) * 0.5, "n": np.int32(k)}
    if name == "map_of_loops":
        return {"xs": rng.standard_normal((4, 2)) * (k + 1), "w": rng.standard_normal(2) * 0.3}
    return {"x": np.float64(0.5 + k)}


RUNS = (0, 1, 3, 6)
