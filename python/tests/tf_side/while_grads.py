"""while_grad_programs.build in TensorFlow (tf.compat.v1, control flow v1, TF's stack-based
loop gradient): prints JSON with the fetched gradients and loss per run."""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from while_grad_programs import RUNS, build, feeds  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()
placeholders, fetches = build(tf, tf1)
out = {}
with tf1.Session() as sess:
    for k in RUNS:
        values = sess.run(fetches, {placeholders[name]: v for name, v in feeds(k).items()})
        out[str(k)] = [v.tolist() for v in values]
print(json.dumps(out))
