"""stack_programs.stack_program in TensorFlow (tf.compat.v1, control flow v1): prints JSON with
the fetched values per run and the error text of popping an empty stack."""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from stack_programs import FEED_X, RUNS, stack_program  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()
ops = {"StackV2": lambda m: tf.raw_ops.StackV2(max_size=m, elem_type=tf.float32, stack_name="acc"),
       "StackPushV2": lambda h, v: tf.raw_ops.StackPushV2(handle=h, elem=v),
       "StackPopV2": lambda h: tf.raw_ops.StackPopV2(handle=h, elem_type=tf.float32),
       "StackCloseV2": lambda h: tf.raw_ops.StackCloseV2(handle=h)}
x, n, fetches, close = stack_program(tf, tf1, ops)
out = {}
with tf1.Session() as sess:
    for k in RUNS:
        values = sess.run(fetches + [close], {x: np.array(FEED_X, np.float32), n: k})[:2]
        out[str(k)] = [v.tolist() for v in values]
    try:
        sess.run(ops["StackPopV2"](ops["StackV2"](-1)))
    except tf.errors.InvalidArgumentError as e:
        out["empty"] = e.message
print(json.dumps(out))
