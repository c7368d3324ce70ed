"""Writes the GraphDef fixtures of this folder with real TensorFlow (tf.compat.v1 graph
mode), and what TensorFlow computed with them, for python/tests/test_tf_graphdefs.py.

Run with the suite's pinned TensorFlow (scripts/tf_env.sh prints its python):
    $(scripts/tf_env.sh) tests/data/tf_graphdefs/generate.py
Each fixture NAME is NAME.pb (a binary GraphDef as TensorFlow serialized it) and NAME.npz:
feed:<tensor> arrays to feed, fetch:<tensor> what TensorFlow returned for them; and, for a
training graph, step:<op> how many times TensorFlow ran <op> before fetching. MANIFEST.txt
records the TensorFlow version that wrote them.
"""
import os
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, graph, feeds, fetches, init=None, train=None, steps=0):
    with tf1.Session(graph=graph) as sess:
        if init is not None:
            sess.run(init)
        feed_dict = {graph.get_tensor_by_name(k): v for k, v in feeds.items()}
        for _ in range(steps):
            sess.run(train, feed_dict)
        values = sess.run([graph.get_tensor_by_name(f) for f in fetches], feed_dict)
    with open(os.path.join(HERE, name + ".pb"), "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())
    arrays = {"feed:" + k: v for k, v in feeds.items()}
    arrays.update({"fetch:" + k: v for k, v in zip(fetches, values)})
    if train is not None:
        arrays["init:" + init.name] = np.array(1)
        arrays["step:" + train.name] = np.array(steps)
    np.savez(os.path.join(HERE, name + ".npz"), **arrays)
    print(f"{name}: {len(graph.as_graph_def().node)} nodes, fetches {fetches}")


def seed_238():
    g = tf1.Graph()
    with g.as_default():  # seed 000's first listing
        x = tf1.constant(2)
        y1 = x + 300
        y2 = x - 66
        tf1.identity(y1 + y2, name="y")
    write("seed_238", g, {}, ["y:0"])


def seed_mean():
    g = tf1.Graph()
    with g.as_default():  # seed 000's mean of a placeholder
        x = tf1.placeholder(tf.float32, [None], name="x")
        tf1.reduce_mean(x, name="mean")
    rng = np.random.default_rng(1)
    write("seed_mean", g, {"x:0": rng.random(100, dtype=np.float32)}, ["mean:0"])


def mlp_inference():
    """A frozen 4 -> 8 -> 3 classifier: weights as constants, softmax and argmax."""
    rng = np.random.default_rng(2)
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 4], name="x")
        w1 = tf1.constant(rng.normal(size=(4, 8)).astype(np.float32))
        b1 = tf1.constant(rng.normal(size=8).astype(np.float32))
        w2 = tf1.constant(rng.normal(size=(8, 3)).astype(np.float32))
        h = tf1.nn.relu(tf1.nn.bias_add(tf1.matmul(x, w1), b1))
        logits = tf1.matmul(h, w2, name="logits")
        tf1.nn.softmax(logits, name="probabilities")
        tf1.argmax(logits, axis=1, name="classes")
    write("mlp_inference", g, {"x:0": rng.normal(size=(5, 4)).astype(np.float32)},
          ["logits:0", "probabilities:0", "classes:0"])


def regression_training():
    """Seed 003's kind of program: resource variables, TF's own gradient graph and
    GradientDescentOptimizer, trained 20 steps; the weights and loss after it."""
    rng = np.random.default_rng(3)
    g = tf1.Graph()
    with g.as_default():
        tf1.set_random_seed(0)
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        y = tf1.placeholder(tf.float32, [None, 1], name="y")
        w = tf1.get_variable("w", initializer=tf1.constant(rng.normal(size=(3, 1)).astype(np.float32)),
                             use_resource=True)
        b = tf1.get_variable("b", initializer=tf1.constant([0.5], tf.float32), use_resource=True)
        pred = tf1.matmul(x, w) + b
        loss = tf1.reduce_mean(tf1.square(pred - y), name="loss")
        train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        init = tf1.global_variables_initializer()
        tf1.identity(w.read_value(), name="w_value")
    xs = rng.normal(size=(16, 3)).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [3.0]], np.float32) + 0.25).astype(np.float32)
    write("regression_training", g, {"x:0": xs, "y:0": ys}, ["loss:0", "w_value:0"],
          init=init, train=train, steps=20)


if __name__ == "__main__":
    for make in (seed_238, seed_mean, mlp_inference, regression_training):
        make()
    with open(os.path.join(HERE, "MANIFEST.txt"), "w") as f:
        f.write(f"written by TensorFlow {tf.__version__} (tensorflow-cpu from PyPI, tf.compat.v1 graph mode),\n"
                f"Python {sys.version.split()[0]}, NumPy {np.__version__}, with generate.py of this folder.\n")
