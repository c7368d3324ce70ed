"""Writes GraphDefs with TF1 dataflow control flow (tf.compat.v1.cond / tf.case with control
flow v2 disabled: Switch, Merge, pivots) and what TensorFlow computed with them, for
python/tests/test_control_flow_cond.py.

Run with the suite's pinned TensorFlow (scripts/tf_env.sh prints its python):
    $(scripts/tf_env.sh) tests/data/tf_control_flow/generate.py
Each fixture NAME is NAME.pb (a binary GraphDef as TensorFlow serialized it) and NAME.npz with,
for every run k, run<k>/feed:<tensor> arrays fed and run<k>/fetch:<tensor> what TensorFlow
returned; a training fixture also has init:<op> and train:<op> (run once before each run's
fetches). MANIFEST.txt records the TensorFlow version that wrote them.
"""
import os

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()
HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, graph, runs, fetches, init=None, train=None):
    """With `train`: `init` runs first, and each run is one training step before the fetches."""
    arrays = {}
    with tf1.Session(graph=graph) as sess:
        if init is not None:
            sess.run(init)
            arrays["init:" + init.name] = np.array(1)
            arrays["train:" + train.name] = np.array(1)
        for k, feeds in enumerate(runs):
            if train is not None:
                sess.run(train, {graph.get_tensor_by_name(t): v for t, v in feeds.items()})
            values = sess.run([graph.get_tensor_by_name(f) for f in fetches],
                              {graph.get_tensor_by_name(t): v for t, v in feeds.items()})
            arrays.update({f"run{k}/feed:{t}": v for t, v in feeds.items()})
            arrays.update({f"run{k}/fetch:{f}": v for f, v in zip(fetches, values)})
    graph_def = graph.as_graph_def()
    assert any(n.op == "Switch" for n in graph_def.node) and any(n.op == "Merge" for n in graph_def.node)
    assert len(graph_def.library.function) == 0  # Control flow v1: no functions.
    with open(os.path.join(HERE, name + ".pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    np.savez(os.path.join(HERE, name + ".npz"), **arrays)
    print(f"{name}: {len(graph_def.node)} nodes, {len(runs)} runs, fetches {fetches}")


def cond_branches():
    """A cond whose branches read outside tensors, make constants, and nest another cond."""
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [3], name="x")
        w = tf.constant([1.5, -2.0, 0.25], name="w")
        s = tf.reduce_sum(x * w)
        y = tf1.cond(s > 0.0,
                     lambda: tf.tanh(x) * w + 1.0,
                     lambda: tf1.cond(s < -1.0, lambda: tf.square(x) - w, lambda: x * 0.5),
                     name="outer")
        pair = tf1.cond(x[0] > x[1], lambda: (x[0], tf.cast(x[1], tf.int32)),
                        lambda: (x[1], tf.constant(-7)), name="pair")
        tf.identity(y, name="y")
        tf.identity(pair[0], name="pair_value")
        tf.identity(pair[1], name="pair_int")
    rng = np.random.default_rng(18)
    runs = [{"x:0": np.array(v, np.float32)} for v in
            ([1.0, -1.0, 2.0], [-3.0, 0.5, 1.0], [0.1, 0.2, -0.1], [-0.5, 0.0, 0.0])]
    runs.append({"x:0": rng.standard_normal(3).astype(np.float32)})
    write("cond_branches", g, runs, ["y:0", "pair_value:0", "pair_int:0"])


def case_select():
    """tf.case over an int feed: nested conds, the default last."""
    g = tf1.Graph()
    with g.as_default():
        n = tf1.placeholder(tf.int32, [], name="n")
        v = tf1.placeholder(tf.float32, [2, 2], name="v")
        out = tf1.case([(tf.equal(n, 0), lambda: tf.matmul(v, v)),
                        (tf.equal(n, 1), lambda: tf.transpose(v)),
                        (n > 5, lambda: tf.reduce_sum(v, keepdims=True) + v)],
                       default=lambda: -v, name="select")
        tf.identity(out, name="out")
    v = np.array([[1.0, 2.0], [3.0, -4.0]], np.float32)
    write("case_select", g, [{"n:0": np.int32(k), "v:0": v} for k in (0, 1, 2, 9)], ["out:0"])


def cond_training():
    """Resource variables trained through a cond (TF's own cond gradient graph: Switch and
    Merge in the backward pass too); the loss and weights after each step, the flag picking
    the branch."""
    rng = np.random.default_rng(181)
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [8, 3], name="x")
        y = tf1.placeholder(tf.float32, [8, 1], name="y")
        flag = tf1.placeholder(tf.bool, [], name="flag")
        w = tf1.get_variable("w", initializer=tf1.constant(rng.normal(size=(3, 1)).astype(np.float32)),
                             use_resource=True)
        b = tf1.get_variable("b", initializer=tf1.constant([0.5], tf.float32), use_resource=True)
        pred = tf1.matmul(x, w) + b
        loss = tf1.cond(flag, lambda: tf1.reduce_mean(tf1.square(pred - y)),
                        lambda: tf1.reduce_mean(tf1.abs(pred - y)) + 0.1 * tf1.reduce_sum(tf1.square(w)))
        tf1.identity(loss, name="loss")
        train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        init = tf1.global_variables_initializer()
        tf1.identity(w.read_value(), name="w_value")
    xs = rng.normal(size=(8, 3)).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [3.0]], np.float32) + 0.25).astype(np.float32)
    runs = [{"x:0": xs, "y:0": ys, "flag:0": np.bool_(f)} for f in (True, False, False, True, True, False)]
    write("cond_training", g, runs, ["loss:0", "w_value:0"], init=init, train=train)


def while_collatz():
    """A while_loop (Enter/Exit/NextIteration/LoopCond): the Collatz steps of a fed number.
    python/tests/test_control_flow_while.py runs it."""
    g = tf1.Graph()
    with g.as_default():
        n = tf1.placeholder(tf.int64, [], name="n")
        _, steps = tf1.while_loop(lambda v, k: v > 1,
                                  lambda v, k: (tf1.where(tf.equal(v % 2, 0), v // 2, 3 * v + 1), k + 1),
                                  [n, tf.constant(0, tf.int64)], name="collatz")
        tf1.identity(steps, name="steps")
    write("while_collatz", g, [{"n:0": np.int64(v)} for v in (1, 6, 27, 97)], ["steps:0"])


def while_nested():
    """A loop inside a loop: for i < n, an inner loop adds i * j for j < i; both counts fed
    through the outer loop's variable (the inner frame starts once per outer iteration)."""
    g = tf1.Graph()
    with g.as_default():
        n = tf1.placeholder(tf.int32, [], name="n")

        def outer_body(i, total):
            _, inner = tf1.while_loop(lambda j, acc: j < i, lambda j, acc: (j + 1, acc + i * j),
                                      [tf.constant(0), total], name="inner")
            return i + 1, inner

        _, total = tf1.while_loop(lambda i, t: i < n, outer_body, [tf.constant(0), tf.constant(0)],
                                  name="outer")
        tf1.identity(total, name="total")
    write("while_nested", g, [{"n:0": np.int32(v)} for v in (0, 1, 4, 9)], ["total:0"])


def while_power_iteration():
    """Power iteration on a fed matrix, a loop invariant read in every iteration (an
    is_constant Enter), for a fed number of steps; the Rayleigh quotient at the end."""
    g = tf1.Graph()
    with g.as_default():
        a = tf1.placeholder(tf.float64, [4, 4], name="a")
        steps = tf1.placeholder(tf.int32, [], name="steps")

        def body(k, v):
            w = tf.matmul(a, v)
            return k + 1, w / tf.norm(w)

        _, v = tf1.while_loop(lambda k, v: k < steps, body, [tf.constant(0), tf.ones([4, 1], tf.float64)],
                              parallel_iterations=4, name="power")
        tf1.identity(tf.reduce_sum(v * tf.matmul(a, v)), name="eigenvalue")
        tf1.identity(v, name="vector")
    rng = np.random.default_rng(1818)
    runs = []
    for k in (0, 1, 25, 200):
        m = rng.standard_normal((4, 4))
        runs.append({"a:0": m @ m.T, "steps:0": np.int32(k)})
    write("while_power_iteration", g, runs, ["eigenvalue:0", "vector:0"])


FIXTURES = [cond_branches, case_select, cond_training, while_collatz, while_nested, while_power_iteration]

if __name__ == "__main__":
    import sys
    # Names on the command line: write only those (the others stay as committed).
    wanted = set(sys.argv[1:])
    for fixture in FIXTURES:
        if not wanted or fixture.__name__ in wanted:
            fixture()
    with open(os.path.join(HERE, "MANIFEST.txt"), "w") as f:
        f.write(f"written by TensorFlow {tf.__version__} (tf.compat.v1, control flow v2 disabled) "
                "with generate.py in this folder\n")
