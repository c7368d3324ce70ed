"""TensorFlow's side of test_tf_oracle_stateful.py: runs every program of
stateful_programs.py with tf.compat.v1 (graph mode, resource variables) and writes value
NAME of program P as "P.NAME" to OUT.npz (error class names as 0-d strings), and the op
types of P's graphs as "P._ops".
    run_stateful.py OUT.npz"""
import sys

import numpy as np
import tensorflow as tf

from apply_op import apply_op
from stateful_programs import PROGRAMS

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.enable_resource_variables()

out = {}
for program, run in PROGRAMS.items():
    values, graphs = run(tf1, lambda op, inputs, attrs: apply_op(op, inputs, attrs))
    for name, value in values.items():
        out[f"{program}.{name}"] = np.asarray(value)
    out[f"{program}._ops"] = np.array(sorted({op.type for g in graphs for op in g.get_operations()}))
np.savez(sys.argv[1], **out)
