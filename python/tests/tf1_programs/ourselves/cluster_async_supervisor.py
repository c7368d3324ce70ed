"""Asynchronous between-graph replication with tf.train.Supervisor, one process per task
(same flags as cluster_sync_replicas.py): the chief worker initializes the variables on
the ps and checkpoints into --logdir, the other workers wait until the model is ready;
every worker applies its own Adam updates to the shared variables until the global step
reaches --train_steps."""
import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("ps_hosts", "", "Comma-separated host:port of the ps tasks.")
flags.DEFINE_string("worker_hosts", "", "Comma-separated host:port of the worker tasks.")
flags.DEFINE_string("job_name", "", "ps or worker.")
flags.DEFINE_integer("task_index", 0, "Index of the task within its job.")
flags.DEFINE_integer("train_steps", 60, "Global steps to train for.")
flags.DEFINE_string("logdir", "/tmp/tf1_async_supervisor", "The chief's checkpoint directory.")
FLAGS = flags.FLAGS


def main(_):
    ps_hosts = FLAGS.ps_hosts.split(",")
    worker_hosts = FLAGS.worker_hosts.split(",")
    cluster = tf.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
        return
    is_chief = FLAGS.task_index == 0
    rng = np.random.RandomState(FLAGS.task_index)
    xs = rng.normal(size=(200, 3)).astype(np.float32)
    labels = (xs.sum(axis=1) > 0).astype(np.int32)

    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % FLAGS.task_index,
                                                  ps_device="/job:ps", cluster=cluster)):
        global_step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.int32, [None])
        with tf.variable_scope("classifier"):
            w = tf.get_variable("w", [3, 2], initializer=tf.constant_initializer(0.0))
            b = tf.get_variable("b", [2], initializer=tf.constant_initializer(0.0))
        logits = tf.nn.xw_plus_b(x, w, b)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train_op = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=global_step)
        init_op = tf.global_variables_initializer()

    sv = tf.train.Supervisor(is_chief=is_chief, logdir=FLAGS.logdir if is_chief else None, init_op=init_op,
                             global_step=global_step, recovery_wait_secs=1, save_model_secs=600)
    config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % FLAGS.task_index])
    sess = sv.prepare_or_wait_for_session(server.target, config=config)
    tf.logging.info("worker %d: session ready", FLAGS.task_index)
    first_loss = sess.run(loss, {x: xs, y: labels})
    step, local_steps = 0, 0
    while step < FLAGS.train_steps:
        _, step = sess.run([train_op, global_step], {x: xs, y: labels})
        local_steps += 1
    last_loss = sess.run(loss, {x: xs, y: labels})
    if is_chief:
        sv.saver.save(sess, sv.save_path, global_step=global_step)
    sv.stop()
    print("worker %d: %d local steps, global step %d, loss %.4f -> %.4f"
          % (FLAGS.task_index, local_steps, step, first_loss, last_loss))


if __name__ == "__main__":
    tf.app.run()
