"""Seed 003's data-parallel program written once for both libraries (`tf` is
tensorflow.compat.v1 in TensorFlow's process, tensorweave in ours): y = e^x by a 1 -> 16 -> 1
network, parameters on /job:master, each batch split between /job:worker and /job:worker_
(compute_gradients there, averaged and applied on the master); with target "" the same
model in one process on whole batches. Initial values are fixed (the two libraries' random
numbers differ). Returns the losses. Imported by tf_side/seed_client.py and by
test_tw_client_on_tf.py."""
import numpy as np


def data_parallel_losses(tf, target, steps=30, batch=100):
    rng = np.random.RandomState(0)
    start = {"W1": rng.uniform(0, 1, (1, 16)), "b1": np.zeros(16), "W2": rng.uniform(0, 1, (16, 1)), "b2": np.zeros(1)}

    def mlp(x):
        with tf.variable_scope("ps", reuse=tf.AUTO_REUSE):
            v = {k: tf.get_variable(k, initializer=tf.constant(a.astype(np.float32))) for k, a in start.items()}
        return tf.matmul(tf.sigmoid(tf.matmul(x, v["W1"]) + v["b1"]), v["W2"]) + v["b2"]

    optimizer = tf.train.AdamOptimizer(0.05)
    if target:
        with tf.device("/job:master/task:0"):
            mlp(tf.placeholder(tf.float32, [None, 1]))
        towers, losses, feeds = [], [], []
        for device in ("/job:worker/task:0", "/job:worker_/task:0"):
            with tf.device(device):
                x = tf.placeholder(tf.float32, [None, 1])
                y = tf.placeholder(tf.float32, [None, 1])
                feeds.append((x, y))
                loss = tf.reduce_mean(tf.square(mlp(x) - y))
                losses.append(loss)
                towers.append(optimizer.compute_gradients(loss))
        with tf.device("/job:master/task:0"):
            averaged = []
            for grad_and_vars in zip(*towers):
                grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
                averaged.append((tf.reduce_mean(tf.concat(grads, 0), 0), grad_and_vars[0][1]))
            train = optimizer.apply_gradients(averaged)
            loss = tf.add_n(losses) / 2
    else:
        x = tf.placeholder(tf.float32, [None, 1])
        y = tf.placeholder(tf.float32, [None, 1])
        loss = tf.reduce_mean(tf.square(mlp(x) - y))
        train = optimizer.minimize(loss)
    data = np.random.RandomState(1)
    out = []
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            xs = data.uniform(0, 1, (batch, 1)).astype(np.float32)
            ys = np.exp(xs)
            if target:
                half = batch // 2
                fed = {feeds[0][0]: xs[:half], feeds[0][1]: ys[:half], feeds[1][0]: xs[half:], feeds[1][1]: ys[half:]}
            else:
                fed = {x: xs, y: ys}
            out.append(float(sess.run([loss, train], fed)[0]))
    return out
