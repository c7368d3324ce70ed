"""while_grad_data_programs in TensorFlow (tf.compat.v1, control flow v1, TF's stack-based
loop gradient): prints JSON {program: {run: [fetched values]}}."""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from while_grad_data_programs import PROGRAMS, RUNS, feeds  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()
out = {}
for name, build in PROGRAMS.items():
    with tf.Graph().as_default():
        placeholders, fetches = build(tf, tf1)
        with tf1.Session() as sess:
            out[name] = {}
            for k in RUNS:
                values = sess.run(fetches, {placeholders[n]: v for n, v in feeds(name, k).items()})
                out[name][str(k)] = [v.tolist() for v in values]
print(json.dumps(out))
