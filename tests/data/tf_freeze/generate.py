"""Writes the freeze fixtures of this folder with real TensorFlow (tf.compat.v1 graph mode),
for python/tests/test_tw_graph_tools.py: a small MLP trained a few steps, once on reference
variables (VariableV2) and once on resource variables (VarHandleOp), each saved as

  NAME.pb              the binary GraphDef (with its train op, initializer and saver)
  NAME_ckpt/model.ckpt.*   the checkpoint TensorFlow's Saver wrote after training (and its .meta)
  NAME_frozen_tf.pb    what TensorFlow's own freeze_graph made of them (output node "output"; for
                       the resource one, its convert_variables_to_constants on the live session)
  NAME.npz             x: an input; output: what the frozen graph computes for it in TensorFlow;
                       train_x, train_y, steps: how it was trained (so a test can train again)

and res_mlp_saved_model/, the resource MLP as a TF1 SavedModel (simple_save; tag "serve").
Run with the suite's pinned TensorFlow (scripts/tf_env.sh prints its python):
    $(scripts/tf_env.sh) tests/data/tf_freeze/generate.py
MANIFEST.txt records the TensorFlow version.
"""
import os
import shutil
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.tools import freeze_graph

tf1 = tf.compat.v1
tf1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 5


def mlp(resource):
    g = tf1.Graph()
    rng = np.random.default_rng(23 if resource else 22)
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        y = tf1.placeholder(tf.float32, [None, 2], name="y")
        def var(name, value):
            return tf1.Variable(value.astype(np.float32), name=name, use_resource=resource)
        w1 = var("w1", rng.normal(size=(3, 4)))
        b1 = var("b1", rng.normal(size=4) * 0.1)
        w2 = var("w2", rng.normal(size=(4, 2)))
        b2 = var("b2", rng.normal(size=2) * 0.1)
        hidden = tf.nn.relu(tf.matmul(x, w1) + b1, name="hidden")
        out = tf.identity(tf.matmul(hidden, w2) + b2, name="output")
        loss = tf.reduce_mean(tf.square(out - y), name="loss")
        tf1.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        tf1.global_variables_initializer()
        tf1.train.Saver()
    return g


def write(name, resource):
    rng = np.random.default_rng(5)
    train_x = rng.normal(size=(8, 3)).astype(np.float32)
    train_y = rng.normal(size=(8, 2)).astype(np.float32)
    x = rng.normal(size=(4, 3)).astype(np.float32)
    g = mlp(resource)
    graph_path = os.path.join(HERE, name + ".pb")
    ckpt_dir = os.path.join(HERE, name + "_ckpt")
    shutil.rmtree(ckpt_dir, ignore_errors=True)
    os.makedirs(ckpt_dir)
    saver = g.get_collection(tf1.GraphKeys.SAVERS)
    with tf1.Session(graph=g) as sess:
        sess.run("init")
        for _ in range(STEPS):
            sess.run("train", {"x:0": train_x, "y:0": train_y})
        saver = tf1.train.Saver(g.get_collection(tf1.GraphKeys.GLOBAL_VARIABLES))
        prefix = saver.save(sess, os.path.join(ckpt_dir, "model.ckpt"), write_state=False)
        frozen_def = tf1.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["output"])
        if resource:
            sm_dir = os.path.join(HERE, name + "_saved_model")
            shutil.rmtree(sm_dir, ignore_errors=True)
            tf1.saved_model.simple_save(sess, sm_dir, inputs={"x": g.get_tensor_by_name("x:0")},
                                        outputs={"output": g.get_tensor_by_name("output:0")})
    with open(graph_path, "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    frozen_path = os.path.join(HERE, name + "_frozen_tf.pb")
    if resource:
        # TensorFlow 2.20's freeze_graph cannot restore resource variables from a graph and
        # checkpoint (its own Saver over the checkpoint's names reads the handles, and the
        # MetaGraph path imports the graph twice), so its converter runs on the live session.
        with open(frozen_path, "wb") as f:
            f.write(frozen_def.SerializeToString())
    else:
        freeze_graph.freeze_graph(input_graph=graph_path, input_saver="", input_binary=True,
                                  input_checkpoint=prefix, output_node_names="output", restore_op_name="",
                                  filename_tensor_name="", output_graph=frozen_path, clear_devices=True,
                                  initializer_nodes="")
    frozen = tf1.GraphDef()
    with open(frozen_path, "rb") as f:
        frozen.ParseFromString(f.read())
    with tf1.Graph().as_default() as fg:
        tf1.import_graph_def(frozen, name="")
        with tf1.Session(graph=fg) as sess:
            output = sess.run("output:0", {"x:0": x})
    np.savez(os.path.join(HERE, name + ".npz"), x=x, output=output, train_x=train_x, train_y=train_y,
             steps=np.int64(STEPS))


def main():
    write("ref_mlp", resource=False)
    write("res_mlp", resource=True)
    with open(os.path.join(HERE, "MANIFEST.txt"), "w") as f:
        f.write(f"written by TensorFlow {tf.__version__} (tensorflow-cpu from PyPI, tf.compat.v1 graph mode),\n"
                f"Python {sys.version.split()[0]}, NumPy {np.__version__}, with generate.py of this folder.\n")


if __name__ == "__main__":
    main()
