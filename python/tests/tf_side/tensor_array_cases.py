"""tensor_array_programs in TensorFlow (tf.compat.v1, control flow v1): prints JSON with each
program's fetched values and shapes, and each error case's class and message."""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tensor_array_programs import ERRORS, PROGRAMS  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()
out = {"values": {}, "shapes": {}, "static_shapes": {}, "errors": {}}
for name, build in PROGRAMS.items():
    with tf.Graph().as_default():
        fetches = build(tf, tf1)
        out["static_shapes"][name] = [None if f.shape.rank is None else [d for d in f.shape.as_list()] for f in fetches]
        with tf1.Session() as sess:
            values = sess.run(fetches)
            out["values"][name] = [v.tolist() for v in values]
            out["shapes"][name] = [list(v.shape) for v in values]
for name, build in ERRORS.items():
    with tf.Graph().as_default():
        try:
            fetch = build(tf, tf1)
            with tf1.Session() as sess:
                sess.run(fetch)
            out["errors"][name] = ["none", ""]
        except tf.errors.OpError as e:
            lines = [ln for ln in e.message.split("\n") if ln.strip() and not ln.startswith(("\t", " ", "Graph execution",
                                                                                          "Detected at", "Node:"))]
            out["errors"][name] = [type(e).__name__, lines[0]]
        except ValueError as e:
            out["errors"][name] = ["ValueError", str(e)]
print(json.dumps(out))
