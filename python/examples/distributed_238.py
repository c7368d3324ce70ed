"""Seed 000: the 238 graph split over the two tasks of job "local".

    python3 distributed_238.py                        # starts its own two servers
    python3 distributed_238.py 'local|localhost:2222;localhost:2223'   # servers from create_worker.py
"""
import sys

import tensorweave as tf

if len(sys.argv) > 1:
    cluster = tf.train.ClusterSpec(sys.argv[1])
else:
    from tensorweave.local_cluster import start_local_cluster
    cluster, servers = start_local_cluster("local", 2)

x = tf.constant(2)

with tf.device("/job:local/task:1"):
    y2 = x - 66

with tf.device("/job:local/task:0"):
    y1 = x + 300
    y = y1 + y2

with tf.Session("grpc://" + cluster.task_address("local", 0)) as sess:
    result = sess.run(y)
    print(result)
