"""One TensorFlow gRPC server (tf.distribute.Server) of a benchmark's cluster, with the
given kernel thread counts; exits when the process that started it is gone.
Usage: tf_server.py SPEC JOB TASK INTRA INTER   (SPEC: a Python dict literal)"""
import ast
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

spec, job, task, intra, inter = ast.literal_eval(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(
    sys.argv[5])
parent = os.getppid()
config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=intra, inter_op_parallelism_threads=inter)
server = tf.distribute.Server(tf.train.ClusterSpec(spec), job_name=job, task_index=task, config=config)
while os.getppid() == parent:
    time.sleep(0.5)
