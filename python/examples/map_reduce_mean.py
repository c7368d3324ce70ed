"""Seed 000's map/reduce mean, with the exercise's fix: slices of different sizes, each
slice's mean weighted by its size (tf.size), computed on the two tasks of job "local".

    python3 map_reduce_mean.py                        # starts its own two servers
    python3 map_reduce_mean.py 'local|localhost:2222;localhost:2223'
"""
import sys

import numpy as np

import tensorweave as tf

if len(sys.argv) > 1:
    cluster = tf.train.ClusterSpec(sys.argv[1])
else:
    from tensorweave.local_cluster import start_local_cluster
    cluster, servers = start_local_cluster("local", 2)

x = tf.placeholder(tf.float32, 100)

with tf.device("/job:local/task:1"):
    first_batch = tf.slice(x, [0], [30])
    mean1 = tf.reduce_mean(first_batch)
    size1 = tf.size(first_batch)

with tf.device("/job:local/task:0"):
    second_batch = tf.slice(x, [30], [-1])
    mean2 = tf.reduce_mean(second_batch)
    size2 = tf.size(second_batch)
    total = tf.cast(size1 + size2, tf.float32)
    mean = (tf.cast(size1, tf.float32) * mean1 + tf.cast(size2, tf.float32) * mean2) / total

values = np.random.random(100)
with tf.Session("grpc://" + cluster.task_address("local", 0)) as sess:
    result = sess.run(mean, feed_dict={x: values})
    print(result)
    print("numpy:", values.astype(np.float32).mean())
