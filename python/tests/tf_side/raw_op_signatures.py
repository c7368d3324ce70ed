"""Prints TensorFlow's tf.raw_ops signatures as JSON: {op: [parameter names]} for the ops
named as arguments, skipping those TensorFlow lacks; and whether tf.gradients through
ParseSingleExample fails (TensorFlow registers no gradient for them)."""
import inspect
import json
import sys

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

signatures = {}
for op in sys.argv[1:]:
    fn = getattr(tf.raw_ops, op, None)
    if fn is not None:
        signatures[op] = list(inspect.signature(fn).parameters)

no_gradient = {}
with tf1.Graph().as_default():
    default = tf1.placeholder(tf.float32, [1])
    outs = tf.raw_ops.ParseSingleExample(serialized=tf.constant(b""), dense_defaults=[default], num_sparse=0,
                                         sparse_keys=[], dense_keys=["x"], sparse_types=[], dense_shapes=[[1]])
    try:
        tf1.gradients(outs[-1], [default])
        no_gradient["ParseSingleExample"] = "none"
    except LookupError as e:
        no_gradient["ParseSingleExample"] = type(e).__name__
print(json.dumps({"signatures": signatures, "no_gradient": no_gradient}))
