"""tensorweave's side of bench/lenet_training.sh: the LeNet-5-style training step of issue 16
(batch 64 of 28x28x1, conv 5x5 32 -> max pool -> conv 5x5 64 -> max pool -> dense 1024 ->
dropout 0.5 -> dense 10, softmax cross-entropy, Adam 1e-4) through tf.Session with intra-
and inter-op pools of THREADS threads. Prints the median step time; RESULT ms_per_step=...
Usage: lenet_training.py THREADS STEPS"""
import os
import sys
import time

import numpy as np

import tensorweave as tf

# Wall time; this process's CPU time with TW_BENCH_CLOCK=cpu (one thread only: steadier than wall
# time on a loaded machine, and the same measure for both sides).
clock = time.process_time if os.environ.get("TW_BENCH_CLOCK") == "cpu" else time.perf_counter

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
rng = np.random.default_rng(5)
images = rng.random((64, 28, 28, 1), dtype=np.float32)
labels = np.arange(64) % 10

x = tf.placeholder(tf.float32, [None, 28, 28, 1])
y = tf.placeholder(tf.int64, [None])
keep = tf.placeholder_with_default(1.0, [])
init = tf.truncated_normal_initializer(stddev=0.1, seed=1)
h = tf.layers.conv2d(x, 32, 5, padding="same", activation=tf.nn.relu, kernel_initializer=init)
h = tf.layers.max_pooling2d(h, 2, 2)
h = tf.layers.conv2d(h, 64, 5, padding="same", activation=tf.nn.relu, kernel_initializer=init)
h = tf.layers.max_pooling2d(h, 2, 2)
h = tf.layers.dense(tf.reshape(h, [-1, 7 * 7 * 64]), 1024, activation=tf.nn.relu, kernel_initializer=init)
h = tf.nn.dropout(h, keep)
logits = tf.layers.dense(h, 10, kernel_initializer=init)
loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
train = tf.train.AdamOptimizer(1e-4).minimize(loss)

config = tf.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    feed = {x: images, y: labels, keep: 0.5}
    for _ in range(3):  # warm-up
        sess.run(train, feed)
    times = []
    for _ in range(steps):
        start = clock()
        sess.run(train, feed)
        times.append((clock() - start) * 1000)
    final = sess.run(loss, {x: images, y: labels})
median = float(np.median(times))
print(f"tensorweave LeNet-5 batch 64 Adam, {threads} thread(s): {median:.2f} ms/step median "
      f"({1000 / median:.1f} steps/s), loss {final:.4f}", flush=True)
print(f"RESULT ms_per_step={median:.3f}")
