"""TensorFlow's side of test_tf_ref_graphs.py's client test: a tf.compat.v1 program with
TF1's reference variables (resource variables disabled) run once in TensorFlow's own process
and once with tf.Session(TARGET) on tensorweave servers. The graph reaches the server in
pieces (TensorFlow's client extends the session as it grows): training first, then
report_uninitialized_variables, then a Saver that saves to and restores from DIR. Prints one
JSON object {"local": {...}, "remote": {...}} of the values fetched.
    ref_variable_client.py TARGET DIR"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_resource_variables()


def program(target, save_dir):
    rng = np.random.default_rng(5)
    out = {}
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 2], name="x")
        y = tf1.placeholder(tf.float32, [None, 1], name="y")
        with tf1.device("/job:local/task:1" if target else None):  # the ps task, on the cluster
            w = tf1.Variable([[0.5], [-0.5]], name="w")
            step = tf1.train.get_or_create_global_step()
        loss = tf1.reduce_mean(tf1.square(tf1.matmul(x, w) - y))
        train = tf1.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=step)
        init = tf1.global_variables_initializer()
        with tf1.Session(target, graph=g) as sess:
            sess.run(init)
            for _ in range(5):
                xs = rng.normal(size=(4, 2)).astype(np.float32)
                sess.run(train, {x: xs, y: xs @ [[2.0], [1.0]]})
            out["w"] = sess.run(w).tolist()  # fetches the ref "w:0"
            out["step"] = int(sess.run(step))
            extra = tf1.Variable(7, name="extra")  # added after the session started
            out["uninitialized"] = [s.decode() for s in sess.run(tf1.report_uninitialized_variables())]
            sess.run(extra.initializer)
            out["uninitialized_after"] = [s.decode() for s in sess.run(tf1.report_uninitialized_variables())]
            saver = tf1.train.Saver(sharded=True)
            prefix = saver.save(sess, os.path.join(save_dir, "model.ckpt"), write_meta_graph=False,
                                write_state=False)
            sess.run(tf1.assign(w, [[0.0], [0.0]]))
            sess.run(tf1.assign_add(step, 100))
            saver.restore(sess, prefix)
            out["restored_w"] = sess.run(w).tolist()
            out["restored_step"] = int(sess.run(step))
            out["files"] = sorted(os.listdir(save_dir))
    return out


if __name__ == "__main__":
    target, save_dir = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(save_dir, "local"))
    os.makedirs(os.path.join(save_dir, "remote"))
    print(json.dumps({"local": program("", os.path.join(save_dir, "local")),
                      "remote": program(target, os.path.join(save_dir, "remote"))}))
