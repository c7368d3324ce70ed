"""tf.train.MonitoredTrainingSession with hooks: StopAtStepHook ends training at
--last_step, a hook of our own reads the loss through SessionRunArgs, and the session
checkpoints into --checkpoint_dir, from which a second run continues."""
import numpy as np
import tensorflow as tf

tf.app.flags.DEFINE_string("checkpoint_dir", "/tmp/tf1_monitored", "Checkpoint directory.")
tf.app.flags.DEFINE_integer("last_step", 40, "Global step to stop at.")
FLAGS = tf.app.flags.FLAGS


class LossHistoryHook(tf.train.SessionRunHook):
    """Records the loss after every step, and how many times the session began."""

    def __init__(self, loss):
        self._loss = loss
        self.history = []
        self.began = 0

    def begin(self):
        self.began += 1

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        self.history.append(run_values.results)


def main(_):
    rng = np.random.RandomState(5)
    features = rng.normal(size=(128, 6)).astype(np.float32)
    targets = features.dot(rng.normal(size=(6, 1))).astype(np.float32)
    w0 = np.zeros((6, 1), dtype=np.float32)

    global_step = tf.train.get_or_create_global_step()
    with tf.variable_scope("regression"):
        w = tf.get_variable("w", initializer=tf.constant(w0))
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(features), w) - targets))
    train_op = tf.train.RMSPropOptimizer(0.05).minimize(loss, global_step=global_step)

    history = LossHistoryHook(loss)
    hooks = [tf.train.StopAtStepHook(last_step=FLAGS.last_step), history]
    with tf.train.MonitoredTrainingSession(checkpoint_dir=FLAGS.checkpoint_dir, hooks=hooks,
                                           save_checkpoint_secs=None, save_checkpoint_steps=10,
                                           save_summaries_steps=None, save_summaries_secs=None,
                                           log_step_count_steps=0) as sess:
        while not sess.should_stop():
            sess.run(train_op)
    print("began %d, steps run %d" % (history.began, len(history.history)))
    print("loss %.6f -> %.6f" % (history.history[0], history.history[-1]))
    print("checkpoint", tf.train.latest_checkpoint(FLAGS.checkpoint_dir).rsplit("/", 1)[-1])


if __name__ == "__main__":
    tf.app.run()
