"""TensorFlow's side of test_partial_step.py: a ps and a worker (tf.distribute.Server in
this process, on free loopback ports) run partial_step_program for gated 0 and 1; prints
one JSON object per line."""
import json
import socket

import tensorflow as tf

from partial_step_program import run

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


spec = tf.train.ClusterSpec({"ps": ["127.0.0.1:%d" % free_port()], "worker": ["127.0.0.1:%d" % free_port()]})
servers = [tf.distribute.Server(spec, job_name=job, task_index=0) for job in ("ps", "worker")]
for gated in (False, True):
    result = run(tf1, servers[1].target, gated)
    print(json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in result.items()}))
