"""TensorFlow's answers for test_tensor_scatter.py: tf.tensor_scatter_nd_* on fixed inputs and
the error texts of bad indices. Prints JSON: name -> values (nested lists) or {"error": text}."""
import json
import re

import numpy as np
import tensorflow as tf

T = np.arange(12.0).reshape(4, 3)


def run(fn):
    try:
        return np.asarray(fn()).tolist()
    except tf.errors.InvalidArgumentError as e:
        return {"error": re.sub(r"^\{\{.*?\}\} ", "", e.message).split(" [Op:")[0]}


out = {
    "update": run(lambda: tf.tensor_scatter_nd_update(T, [[1], [3]], [[-1.0, -2.0, -3.0], [7.0, 8.0, 9.0]])),
    "add": run(lambda: tf.tensor_scatter_nd_add(T, [[0, 1], [0, 1], [2, 2]], [1.5, 2.5, -4.0])),
    "sub": run(lambda: tf.tensor_scatter_nd_sub(T, [[3]], [[1.0, 1.0, 1.0]])),
    "min": run(lambda: tf.tensor_scatter_nd_min(T, [[1, 0], [2, 1]], [0.5, 100.0])),
    "max": run(lambda: tf.tensor_scatter_nd_max(T, [[1, 0], [2, 1]], [0.5, 100.0])),
    "int_update": run(lambda: tf.tensor_scatter_nd_update(np.arange(6).reshape(2, 3), [[1, 2]], [-5])),
    "out_of_range": run(lambda: tf.tensor_scatter_nd_update(T, [[1], [5]], np.ones((2, 3)))),
    "negative": run(lambda: tf.tensor_scatter_nd_add(T, [[0, -1]], [1.0])),
    "outer_mismatch": run(lambda: tf.raw_ops.TensorScatterUpdate(
        tensor=tf.compat.v1.placeholder_with_default(T, None), indices=[[1]], updates=np.ones((2, 3)))),
    "inner_mismatch": run(lambda: tf.raw_ops.TensorScatterUpdate(
        tensor=tf.compat.v1.placeholder_with_default(T, None), indices=[[1, 1, 1]], updates=np.ones((1,)))),
}
print(json.dumps(out))
