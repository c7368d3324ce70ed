"""TensorFlow's side of test_batch_norm.py: builds each case of CASES.json with
batch_norm_graphs.build on tf.compat.v1 (graph mode, CPU) from the arrays of IN.npz and
writes every fetch to OUT.npz.
    batch_norm_cases.py IN.npz CASES.json OUT.npz"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from batch_norm_graphs import build  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()



def raw(op, inputs, attrs):
    return list(getattr(tf.raw_ops, op)(**dict(inputs), **attrs))


data = dict(np.load(sys.argv[1]))
cases = json.load(open(sys.argv[2]))
with tf1.Graph().as_default():
    fetches = {}
    for i, case in enumerate(cases):
        fetches.update(build(tf1, raw, data, i, case))
    # Grappler rewrites an inference FusedBatchNorm into one-output ops (Const, or Mul + Add)
    # and then fails to fetch its other outputs: run the graph as built.
    config = tf1.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    with tf1.Session(config=config) as sess:
        out = sess.run(fetches)
np.savez(sys.argv[3], **out)
