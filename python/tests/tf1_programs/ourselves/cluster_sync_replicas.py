"""Synchronous data-parallel training on a ps/worker cluster, one process per task:

    python cluster_sync_replicas.py --ps_hosts=H:P --worker_hosts=H:P,H:P --job_name=ps --task_index=0
    python cluster_sync_replicas.py ... --job_name=worker --task_index=0   (and 1, ...)

Each task starts its tf.train.Server; each worker builds its own copy of the graph
(between-graph replication) with the variables placed on the ps by replica_device_setter;
SyncReplicasOptimizer averages one gradient from every worker per step; the session sees
only the ps and its own worker (device_filters); MonitoredTrainingSession with the
optimizer's hook and a StopAtStepHook runs the loop."""
import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("ps_hosts", "", "Comma-separated host:port of the ps tasks.")
flags.DEFINE_string("worker_hosts", "", "Comma-separated host:port of the worker tasks.")
flags.DEFINE_string("job_name", "", "ps or worker.")
flags.DEFINE_integer("task_index", 0, "Index of the task within its job.")
flags.DEFINE_integer("train_steps", 30, "Global steps to train for.")
flags.DEFINE_float("learning_rate", 0.2, "Learning rate.")
FLAGS = flags.FLAGS


def worker_data(task_index):
    rng = np.random.RandomState(100 + task_index)  # Each worker has its own shard.
    xs = rng.normal(size=(256, 4)).astype(np.float32)
    ys = (xs.dot(np.array([[1.0], [-1.0], [2.0], [0.5]])) + 1.0).astype(np.float32)
    return xs, ys


def main(_):
    cluster = tf.train.ClusterSpec({"ps": FLAGS.ps_hosts.split(","), "worker": FLAGS.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
        return
    num_workers = len(FLAGS.worker_hosts.split(","))
    is_chief = FLAGS.task_index == 0
    xs, ys = worker_data(FLAGS.task_index)

    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % FLAGS.task_index,
                                                  cluster=cluster)):
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        loss = tf.losses.mean_squared_error(labels=y, predictions=tf.nn.xw_plus_b(x, w, b))
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(FLAGS.learning_rate),
                                             replicas_to_aggregate=num_workers, total_num_replicas=num_workers)
        train_op = opt.minimize(loss, global_step=global_step)

    config = tf.ConfigProto(allow_soft_placement=True,
                            device_filters=["/job:ps", "/job:worker/task:%d" % FLAGS.task_index])
    hooks = [opt.make_session_run_hook(is_chief), tf.train.StopAtStepHook(last_step=FLAGS.train_steps)]
    losses = []
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief, hooks=hooks,
                                           config=config, stop_grace_period_secs=5) as sess:
        while not sess.should_stop():
            start = (len(losses) * 32) % len(xs)
            _, value, step = sess.run([train_op, loss, global_step], {x: xs[start:start + 32], y: ys[start:start + 32]})
            losses.append(value)
    print("worker %d: %d local steps, global step %d, loss %.4f -> %.4f"
          % (FLAGS.task_index, len(losses), step, losses[0], losses[-1]))

if __name__ == "__main__":
    tf.app.run()
