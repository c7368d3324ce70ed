"""Runs frozen GraphDefs in TensorFlow, for test_tw_freeze.py. argv: OUT.npz then items
GRAPH.pb=INPUT.npz; each graph is imported with tf.import_graph_def and "output:0" fetched with
"x:0" fed the input's x; OUT.npz maps each GRAPH.pb to what TensorFlow computed."""
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def main():
    out = {}
    for item in sys.argv[2:]:
        graph_path, input_path = item.split("=", 1)
        gd = tf1.GraphDef()
        with open(graph_path, "rb") as f:
            gd.ParseFromString(f.read())
        with tf1.Graph().as_default() as g:
            tf1.import_graph_def(gd, name="")
            with tf1.Session(graph=g) as sess:
                out[graph_path] = sess.run("output:0", {"x:0": np.load(input_path)["x"]})
    np.savez(sys.argv[1], **out)


if __name__ == "__main__":
    main()
