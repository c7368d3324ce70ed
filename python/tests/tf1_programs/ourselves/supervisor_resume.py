"""tf.train.Supervisor's managed_session: initializes the first time, checkpoints into its
logdir, and when the program runs again with the same logdir it resumes from the newest
checkpoint (global step and weights) instead of starting over."""
import numpy as np
import tensorflow as tf

tf.app.flags.DEFINE_string("logdir", "/tmp/tf1_supervisor", "The Supervisor's logdir.")
tf.app.flags.DEFINE_integer("steps", 20, "Steps to train in this run.")
FLAGS = tf.app.flags.FLAGS


def batch_for(step):
    rng = np.random.RandomState(step)  # The data depend on the step only: a resumed run sees what a long run would.
    xs = rng.uniform(-1, 1, size=(16, 2)).astype(np.float32)
    ys = (xs[:, :1] * 2.0 - xs[:, 1:] + 0.5).astype(np.float32)
    return xs, ys


def main(_):
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable(np.array([[0.1], [0.2]], dtype=np.float32), name="w")
    b = tf.Variable(0.0, name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdagradOptimizer(0.3).minimize(loss, global_step=global_step)

    sv = tf.train.Supervisor(logdir=FLAGS.logdir, global_step=global_step, save_model_secs=600)
    with sv.managed_session() as sess:
        start = sess.run(global_step)
        print("starting at step %d" % start)
        step = start
        while not sv.should_stop() and step < start + FLAGS.steps:
            xs, ys = batch_for(step)
            _, value = sess.run([train_op, loss], {x: xs, y: ys})
            step = sess.run(global_step)  # Read after the update, not beside it.
        print("stopped at step %d loss %.6f" % (step, value))
        print("w %.5f %.5f b %.5f" % (tuple(sess.run(w).ravel()) + (sess.run(b),)))
        sv.saver.save(sess, sv.save_path, global_step=global_step)


if __name__ == "__main__":
    tf.app.run()
