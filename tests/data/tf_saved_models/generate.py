"""Writes the SavedModel and MetaGraph fixtures of this folder with real TensorFlow, and the
outputs TensorFlow computed, for python/tests/test_saved_model_from_tf.py.

    $(scripts/tf_env.sh) tests/data/tf_saved_models/generate.py

builder/: tf.compat.v1.saved_model.Builder, resource variables, tag sets {serve} (signature
"serving_default": x -> y, total) and {train} (no signature).
simple/: tf.compat.v1.saved_model.simple_save (inputs a, b; output out).
meta/: tf.compat.v1.train.Saver.save's model.ckpt-3 + model.ckpt-3.meta, with collections
(train_op, a list of tensors, ints, floats, bytes).
tf2_module/: tf.saved_model.save of a tf.Module with a @tf.function signature (TF2: its
graph calls functions through StatefulPartitionedCall).
tf2_two_heads/: the same with two outputs and a tf.function calling another.
expected.npz: inputs fed and outputs TensorFlow computed, as "<model>/<key>".
MANIFEST.txt: the TensorFlow version.
"""
import os
import shutil
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(25)
expected = {}


def fresh(name):
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    return path


def write_builder():
    w0 = rng.normal(size=(3, 2)).astype(np.float32)
    b0 = np.array([0.5, -1.0], np.float32)
    x_val = rng.normal(size=(4, 3)).astype(np.float32)
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        w = tf1.get_variable("dense/kernel", initializer=tf1.constant(w0), use_resource=True)
        b = tf1.get_variable("dense/bias", initializer=tf1.constant(b0), use_resource=True)
        y = tf1.nn.relu(tf1.matmul(x, w) + b, name="y")
        total = tf1.reduce_sum(y, name="total")
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            # Trained a little, so the saved values differ from the initial ones.
            sess.run([w.assign_add(tf1.ones_like(w) * 0.125), b.assign_sub([0.25, 0.25])])
            y_val, total_val = sess.run([y, total], {x: x_val})
            builder = tf1.saved_model.Builder(fresh("builder"))
            sig = tf1.saved_model.predict_signature_def(inputs={"x": x}, outputs={"y": y, "total": total})
            builder.add_meta_graph_and_variables(sess, [tf1.saved_model.tag_constants.SERVING],
                                                 signature_def_map={"serving_default": sig})
            builder.add_meta_graph(["train"])
            builder.save()
    expected.update({"builder/x": x_val, "builder/y": y_val, "builder/total": total_val,
                     "builder/dense/kernel": w0 + 0.125, "builder/dense/bias": b0 - 0.25})


def write_simple():
    a_val = rng.normal(size=(2, 2)).astype(np.float64)
    b_val = rng.normal(size=(2, 2)).astype(np.float64)
    g = tf1.Graph()
    with g.as_default():
        a = tf1.placeholder(tf.float64, [2, 2], name="a")
        b = tf1.placeholder(tf.float64, [2, 2], name="b")
        scale = tf1.get_variable("scale", initializer=tf1.constant(1.5, tf.float64), use_resource=True)
        out = tf1.identity(tf1.matmul(a, b) * scale + tf1.tanh(a), name="out")
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            out_val = sess.run(out, {a: a_val, b: b_val})
            tf1.saved_model.simple_save(sess, fresh("simple"), inputs={"a": a, "b": b}, outputs={"out": out})
    expected.update({"simple/a": a_val, "simple/b": b_val, "simple/out": out_val})


def write_meta():
    path = fresh("meta")
    os.makedirs(path)
    v0 = rng.normal(size=(2, 3)).astype(np.float32)
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 2], name="x")
        v = tf1.get_variable("v", initializer=tf1.constant(v0), use_resource=True)
        step = tf1.train.get_or_create_global_step()
        pred = tf1.matmul(x, v, name="pred")
        loss = tf1.reduce_mean(tf1.square(pred), name="loss")
        train_op = tf1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        tf1.add_to_collection(tf1.GraphKeys.TRAIN_OP, train_op)
        tf1.add_to_collection("outputs", pred)
        tf1.add_to_collection("outputs", loss)
        for i in (3, -7):
            tf1.add_to_collection("my_ints", i)
        tf1.add_to_collection("my_floats", 0.25)
        tf1.add_to_collection("my_bytes", b"hello")
        saver = tf1.train.Saver()
        x_val = rng.normal(size=(5, 2)).astype(np.float32)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            for _ in range(3):
                sess.run(train_op, {x: x_val})
            v_val, pred_val = sess.run([v, pred], {x: x_val})
            saver.save(sess, os.path.join(path, "model.ckpt"), global_step=3)
    with open(os.path.join(path, "checkpoint"), "w") as f:
        f.write('model_checkpoint_path: "model.ckpt-3"\nall_model_checkpoint_paths: "model.ckpt-3"\n')
    expected.update({"meta/x": x_val, "meta/v": v_val, "meta/pred": pred_val})


class Affine(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(rng.normal(size=(2, 2)).astype(np.float32), name="w")

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
    def __call__(self, x):
        return {"y": tf.matmul(x, self.w) + 1.0}


def write_tf2():
    module = Affine()
    x_val = rng.normal(size=(3, 2)).astype(np.float32)
    y_val = module(tf.constant(x_val))["y"].numpy()
    tf.saved_model.save(module, fresh("tf2_module"), signatures=module.__call__)
    expected.update({"tf2_module/x": x_val, "tf2_module/y": y_val})


class TwoHeads(tf.Module):
    """Two outputs (the call's outputs 0 and 1) and a tf.function called from another."""

    def __init__(self):
        super().__init__()
        self.w = tf.Variable(rng.normal(size=(2, 3)).astype(np.float32), name="w")
        self.b = tf.Variable(np.array([0.5, -0.5, 2.0], np.float32), name="b")
        self.scale = tf.Variable(np.float32(3.0), name="scale")

    @tf.function
    def affine(self, x):
        return tf.matmul(x, self.w) + self.b

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
    def __call__(self, x):
        return {"logits": self.affine(x), "scaled": tf.reduce_sum(x, axis=1) * self.scale}


def write_tf2_two_heads():
    module = TwoHeads()
    x_val = rng.normal(size=(4, 2)).astype(np.float32)
    out = module(tf.constant(x_val))
    tf.saved_model.save(module, fresh("tf2_two_heads"), signatures=module.__call__)
    expected.update({"tf2_two_heads/x": x_val, "tf2_two_heads/logits": out["logits"].numpy(),
                     "tf2_two_heads/scaled": out["scaled"].numpy()})


def main():
    write_builder()
    write_simple()
    write_meta()
    write_tf2()
    write_tf2_two_heads()
    np.savez(os.path.join(HERE, "expected.npz"), **expected)
    with open(os.path.join(HERE, "MANIFEST.txt"), "w") as f:
        f.write(f"written by TensorFlow {tf.__version__} (tensorflow-cpu from PyPI), Python {sys.version.split()[0]},\n"
                f"NumPy {np.__version__}, with generate.py of this folder.\n")
    for root, _, files in sorted(os.walk(HERE)):
        for name in sorted(files):
            print(os.path.relpath(os.path.join(root, name), HERE))


if __name__ == "__main__":
    main()
