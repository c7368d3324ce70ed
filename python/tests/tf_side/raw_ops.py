"""TensorFlow's side of the differential op test (test_tf_oracle_ops.py): runs each case of
CASES.json as the op of that name on the arrays of IN.npz (positional inputs mapped to
TensorFlow's input names through its OpDef, as tf.raw_ops does), on the CPU, and writes
output j of case i as "c<i>_o<j>" to OUT.npz, or the error as "c<i>_error" (a 0-d string).
A case with "grads": {"xs": [input positions], "dys": [key or null per output]} also gets
tf.compat.v1.gradients of the outputs given a dy, with respect to those inputs, weighted
by their dys (the differential gradient test, test_tf_oracle_grads.py): "c<i>_g<k>", or
"c<i>_g<k>_none" (a 0-d bool) where TensorFlow gives no gradient.
    raw_ops.py IN.npz CASES.json OUT.npz"""
import json
import sys

import numpy as np
import tensorflow as tf

from apply_op import apply_op

tf1 = tf.compat.v1
tf1.disable_eager_execution()


arrays = np.load(sys.argv[1])
cases = json.load(open(sys.argv[2]))
out = {}
for i, case in enumerate(cases):
    g = tf1.Graph()
    try:
        with g.as_default():
            inputs = [tf1.constant(arrays[key]) for key in case["inputs"]]
            op = apply_op(case["op"], inputs, case["attrs"], case["list_sizes"])
            results = list(op.outputs)
            grads = []
            if "grads" in case:
                ys = [(y, tf1.constant(arrays[k])) for y, k in zip(results, case["grads"]["dys"]) if k is not None]
                grads = [None] * len(case["grads"]["xs"]) if not ys else tf1.gradients(
                    [y for y, _ in ys], [inputs[p] for p in case["grads"]["xs"]], grad_ys=[dy for _, dy in ys])
                # GatherV2's gradient is IndexedSlices: compared as the dense tensor it stands for.
                grads = [None if x is None else tf1.convert_to_tensor(x) for x in grads]
        with tf1.Session(graph=g) as sess:
            values, grad_values = sess.run((results, [x for x in grads if x is not None]))
            for j, value in enumerate(values):
                out[f"c{i}_o{j}"] = value
            grad_values = iter(grad_values)
            for k, x in enumerate(grads):
                if x is None:
                    out[f"c{i}_g{k}_none"] = np.array(True)
                else:
                    out[f"c{i}_g{k}"] = next(grad_values)
    except Exception as e:  # noqa: BLE001 - the error is the result to compare
        out[f"c{i}_error"] = np.array(f"{type(e).__name__}: {str(e).splitlines()[0]}")
np.savez(sys.argv[3], **out)
