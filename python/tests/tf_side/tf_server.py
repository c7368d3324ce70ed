"""A TensorFlow task for tests: tf.distribute.Server of CLUSTER_JSON ({"job": ["host:port", ...]})
as JOB/TASK, the seeds' create_worker.py. Prints "ready" once it serves, then serves until
killed.
    tf_server.py CLUSTER_JSON JOB TASK"""
import json
import sys

import tensorflow as tf

cluster = tf.train.ClusterSpec(json.loads(sys.argv[1]))
server = tf.distribute.Server(cluster, job_name=sys.argv[2], task_index=int(sys.argv[3]))
print("ready", server.target, flush=True)
server.join()
