"""TensorFlow's side of test_parse_example_sparse.py: runs tf.raw_ops.SparseToDense on each
case's arrays (fed to placeholders in a tf.compat.v1 graph) and saves the result, or the
error's class name and message.
    sparse_to_dense_cases.py IN.npz CASES.json OUT.npz
Case i uses arrays c<i>_indices, c<i>_shape, c<i>_values, c<i>_default and JSON
{"validate": bool}; it writes c<i>_out, or c<i>_error_class and c<i>_error."""
import json
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def main():
    arrays = np.load(sys.argv[1])
    with open(sys.argv[2]) as f:
        cases = json.load(f)
    out = {}
    for i, case in enumerate(cases):
        inputs = [arrays[f"c{i}_{k}"] for k in ("indices", "shape", "values", "default")]
        with tf1.Graph().as_default():
            ph = [tf1.placeholder(tf.as_dtype(x.dtype)) for x in inputs]
            y = tf.raw_ops.SparseToDense(sparse_indices=ph[0], output_shape=ph[1], sparse_values=ph[2],
                                         default_value=ph[3], validate_indices=case["validate"])
            with tf1.Session() as sess:
                try:
                    out[f"c{i}_out"] = sess.run(y, dict(zip(ph, inputs)))
                except tf.errors.OpError as e:
                    out[f"c{i}_error_class"] = np.array(type(e).__name__)
                    out[f"c{i}_error"] = np.array(e.message)
    np.savez(sys.argv[3], **out)


if __name__ == "__main__":
    main()
