"""Seed 003: data-parallel training of the 1 -> 16 -> 1 network approximating y = e^x.
The parameters live on the master task (variable scope "ps", made with get_variable and
reused by each tower); each batch of 100 is split between two worker tasks that compute
gradients on their half (compute_gradients); the master averages them and applies them
(apply_gradients). The same model is trained in this process on the same batches beside
it: the losses agree.

    python3 data_parallel_exp.py            # starts the master and the two workers here
    python3 data_parallel_exp.py 'master|localhost:2222,worker|localhost:2223,worker_|localhost:2224'
"""
import sys

import numpy as np

import tensorweave as tf

STEPS, BATCH, PRINT_EVERY = 1000, 100, 100

if len(sys.argv) > 1:
    cluster = tf.train.ClusterSpec(sys.argv[1])
else:
    from tensorweave.local_cluster import start_local_cluster
    cluster, servers = start_local_cluster(jobs={"master": 1, "worker": 1, "worker_": 1})

def mlp(x):
    """The network; its variables are in the scope "ps", shared by every call."""
    with tf.variable_scope("ps", reuse=tf.AUTO_REUSE):
        W1 = tf.get_variable("W1", shape=[1, 16], initializer=tf.random_uniform_initializer(0, 1, seed=1))
        b1 = tf.get_variable("b1", shape=[16], initializer=tf.zeros_initializer())
        W2 = tf.get_variable("W2", shape=[16, 1], initializer=tf.random_uniform_initializer(0, 1, seed=2))
        b2 = tf.get_variable("b2", shape=[1], initializer=tf.zeros_initializer())
    return tf.matmul(tf.sigmoid(tf.matmul(x, W1) + b1), W2) + b2


def average_gradients(tower_grads):
    """The mean of each variable's gradients over the towers (TensorFlow's sample code)."""
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(grads, 0), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


# Data parallel: the parameters, the average and the update on the master; a tower per worker.
data_parallel = tf.Graph()
with data_parallel.as_default():
    optimizer = tf.train.AdamOptimizer(0.05)
    with tf.device("/job:master/task:0"):
        mlp(tf.placeholder(tf.float32, [None, 1]))  # Makes the variables here, on the master.
    tower_grads, tower_losses = [], []
    for device in ("/job:worker/task:0", "/job:worker_/task:0"):
        with tf.device(device):
            x = tf.placeholder(tf.float32, [None, 1])
            y = tf.placeholder(tf.float32, [None, 1])
            tf.add_to_collection("x", x)
            tf.add_to_collection("y", y)
            loss = tf.reduce_mean(tf.square(mlp(x) - y))
            tower_losses.append(loss)
            tower_grads.append(optimizer.compute_gradients(loss))
    with tf.device("/job:master/task:0"):
        train = optimizer.apply_gradients(average_gradients(tower_grads))
        loss = tf.add_n(tower_losses) / 2  # Equal halves: the whole batch's loss.
    init = tf.global_variables_initializer()

# The single-process run.
single = tf.Graph()
with single.as_default():
    sx = tf.placeholder(tf.float32, [None, 1])
    sy = tf.placeholder(tf.float32, [None, 1])
    single_loss = tf.reduce_mean(tf.square(mlp(sx) - sy))
    single_train = tf.train.AdamOptimizer(0.05).minimize(single_loss)
    single_init = tf.global_variables_initializer()

rng = np.random.RandomState(1)
largest_relative = 0.0
with tf.Session("grpc://" + cluster.task_address("master", 0), graph=data_parallel) as sess, \
        tf.Session(graph=single) as single_sess:
    sess.run(init)
    single_sess.run(single_init)
    x0, x1 = data_parallel.get_collection("x")
    y0, y1 = data_parallel.get_collection("y")
    half = BATCH // 2
    for step in range(1, STEPS + 1):
        xs = rng.uniform(0, 1, (BATCH, 1)).astype(np.float32)
        ys = np.exp(xs)
        value, _ = sess.run([loss, train], {x0: xs[:half], y0: ys[:half], x1: xs[half:], y1: ys[half:]})
        single_value, _ = single_sess.run([single_loss, single_train], {sx: xs, sy: ys})
        largest_relative = max(largest_relative, abs(value - single_value) / abs(single_value))
        if step % PRINT_EVERY == 0:
            print("step %d  loss %.6g  single-process %.6g" % (step, value, single_value))
print("final loss after %d steps: data-parallel %.6g, single process %.6g (largest relative difference %.3g)"
      % (STEPS, value, single_value, largest_relative))
