"""TensorFlow's side of the differential op test (test_tf_oracle_ops.py): runs each case of
CASES.json as the op of that name on the arrays of IN.npz (positional inputs mapped to
TensorFlow's input names through its OpDef, as tf.raw_ops does), on the CPU, and writes
output j of case i as "c<i>_o<j>" to OUT.npz, or the error as "c<i>_error" (a 0-d string).
    raw_ops.py IN.npz CASES.json OUT.npz"""
import json
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import op_def_library, op_def_registry

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def default_of(attr):
    """The Python value of an attr's default (what tf.raw_ops fills in by itself)."""
    v = attr.default_value
    kind = v.WhichOneof("value")
    if kind == "list":
        return list(v.list.i) or [x.decode() for x in v.list.s] or list(v.list.f)
    if kind == "s":
        return v.s.decode()
    if kind == "type":
        return tf.as_dtype(v.type)
    return getattr(v, kind)


arrays = np.load(sys.argv[1])
cases = json.load(open(sys.argv[2]))
out = {}
for i, case in enumerate(cases):
    op_def = op_def_registry.get(case["op"])
    g = tf1.Graph()
    try:
        with g.as_default():
            inputs = [tf1.constant(arrays[key]) for key in case["inputs"]]
            kwargs = {}
            position = 0
            for arg in op_def.input_arg:
                if arg.number_attr or arg.type_list_attr:  # a list input takes the rest
                    count = case["list_sizes"][arg.name]
                    kwargs[arg.name] = inputs[position:position + count]
                    position += count
                else:
                    kwargs[arg.name] = inputs[position]
                    position += 1
            for name, value in case["attrs"].items():
                is_type = any(a.name == name and a.type == "type" for a in op_def.attr)
                kwargs[name] = tf.as_dtype(value) if is_type else value
            for attr in op_def.attr:
                if attr.name not in kwargs and attr.HasField("default_value") and attr.type != "type":
                    kwargs[attr.name] = default_of(attr)
            _, _, op, _ = op_def_library._apply_op_helper(case["op"], **kwargs)
            results = list(op.outputs)
        with tf1.Session(graph=g) as sess:
            for j, value in enumerate(sess.run(results)):
                out[f"c{i}_o{j}"] = value
    except Exception as e:  # noqa: BLE001 - the error is the result to compare
        out[f"c{i}_error"] = np.array(f"{type(e).__name__}: {str(e).splitlines()[0]}")
np.savez(sys.argv[3], **out)
