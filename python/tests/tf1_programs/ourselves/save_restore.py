"""Trains a small model, saves checkpoints with tf.train.Saver (keeping the last two),
then builds the graph again in a new session, finds the newest checkpoint and restores it:
the restored values are the trained ones, and the variables were uninitialized before."""
import os

import numpy as np
import tensorflow as tf

tf.app.flags.DEFINE_string("checkpoint_dir", "/tmp/tf1_save_restore", "Where checkpoints go.")
tf.app.flags.DEFINE_integer("steps", 30, "Training steps.")
FLAGS = tf.app.flags.FLAGS


def build(w0):
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [None, 2])
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [3, 2], initializer=tf.constant_initializer(w0))
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.nn.xw_plus_b(x, w, b) - y))
    step = tf.train.get_or_create_global_step()
    train_op = tf.train.MomentumOptimizer(0.05, 0.5).minimize(loss, global_step=step)
    return x, y, w, b, loss, step, train_op


def main(_):
    rng = np.random.RandomState(11)
    w0 = rng.normal(size=(3, 2)).astype(np.float32)
    xs = rng.normal(size=(64, 3)).astype(np.float32)
    ys = xs.dot(rng.normal(size=(3, 2))).astype(np.float32)
    if tf.gfile.Exists(FLAGS.checkpoint_dir):
        tf.gfile.DeleteRecursively(FLAGS.checkpoint_dir)
    tf.gfile.MakeDirs(FLAGS.checkpoint_dir)
    prefix = os.path.join(FLAGS.checkpoint_dir, "model.ckpt")

    with tf.Graph().as_default():
        x, y, w, b, loss, step, train_op = build(w0)
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(FLAGS.steps):
                sess.run(train_op, {x: xs, y: ys})
                if (i + 1) % 10 == 0:
                    path = saver.save(sess, prefix, global_step=step)
                    print("saved", os.path.basename(path))
            trained_w, trained_b, trained_loss = sess.run([w, b, loss], {x: xs, y: ys})
    print("trained loss %.6f" % trained_loss)
    print("w", " ".join("%.5f" % v for v in trained_w.ravel()))

    with tf.Graph().as_default():
        x, y, w, b, loss, step, _ = build(w0)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            print("initialized before restore:", sess.run(tf.is_variable_initialized(w)))
            latest = tf.train.latest_checkpoint(FLAGS.checkpoint_dir)
            print("latest", os.path.basename(latest))
            saver.restore(sess, latest)
            restored_w, restored_b, restored_loss, restored_step = sess.run([w, b, loss, step], {x: xs, y: ys})
    print("restored step %d loss %.6f" % (restored_step, restored_loss))
    print("restored equal:", bool(np.array_equal(restored_w, trained_w) and np.array_equal(restored_b, trained_b)))
    kept = sorted(f for f in tf.gfile.ListDirectory(FLAGS.checkpoint_dir) if f.endswith(".index"))
    print("kept", kept)


if __name__ == "__main__":
    tf.app.run()
