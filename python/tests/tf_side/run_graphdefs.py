"""TensorFlow's side of test_graphdef_to_tf.py: imports each GraphDef tensorweave wrote with
tf.import_graph_def and runs it in a tf.compat.v1 Session as the .npz beside it says (init
ops, training steps, feeds), writing what it fetched to <name>.tf.npz.
    run_graphdefs.py DIR NAME..."""
import os
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def entries(data, prefix):
    return [(k[len(prefix):], data[k]) for k in data.files if k.startswith(prefix)]


def run(directory, name):
    data = np.load(os.path.join(directory, name + ".npz"))
    graph_def = tf1.GraphDef()
    with open(os.path.join(directory, name + ".pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    g = tf1.Graph()
    with g.as_default():
        tf1.import_graph_def(graph_def, name="")
    with tf1.Session(graph=g) as sess:
        feeds = {g.get_tensor_by_name(k): v for k, v in entries(data, "feed:")}
        for op, _ in entries(data, "init:"):
            sess.run(g.get_operation_by_name(op))
        for op, steps in entries(data, "step:"):
            for _ in range(int(steps)):
                sess.run(g.get_operation_by_name(op), feeds)
        fetches = [k for k, _ in entries(data, "fetch:")]
        values = sess.run([g.get_tensor_by_name(k) for k in fetches], feeds)
    np.savez(os.path.join(directory, name + ".tf.npz"), **dict(zip(fetches, values)))
    print(name, tf.__version__)


if __name__ == "__main__":
    for n in sys.argv[2:]:
        run(sys.argv[1], n)
