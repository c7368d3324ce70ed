"""TensorFlow's answers for test_linalg_ops.py: the tf.linalg composites on fixed inputs, and
the error text of the matrix ops on bad inputs. Prints JSON: name -> values (nested lists) or
{"error": message}."""
import json
import re

import numpy as np
import tensorflow as tf

A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -0.25], [0.5, -0.25, 2.0]])
B = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 0.25]])
X = np.arange(24.0).reshape(2, 3, 4)


def run(fn):
    try:
        return np.asarray(fn()).tolist()
    except tf.errors.InvalidArgumentError as e:
        # The kernel's own text, without eager mode's "{{function_node ...}}" and "[Op:...]" wrapping.
        return {"error": re.sub(r"^\{\{.*?\}\} ", "", e.message).split(" [Op:")[0]}


out = {
    "cholesky_solve": run(lambda: tf.linalg.cholesky_solve(tf.linalg.cholesky(A), B)),
    "trace": run(lambda: tf.linalg.trace(X)),
    "eye": run(lambda: tf.eye(2, 3, batch_shape=[2], dtype=tf.float64)),
    "matrix_transpose": run(lambda: tf.linalg.matrix_transpose(X)),
    "slogdet": run(lambda: tf.stack(tf.linalg.slogdet(-A))),
    "inverse_singular": run(lambda: tf.raw_ops.MatrixInverse(input=np.zeros((2, 2)))),
    "inverse_not_square": run(lambda: tf.raw_ops.MatrixInverse(input=np.zeros((2, 3)))),
    "solve_singular": run(lambda: tf.raw_ops.MatrixSolve(matrix=np.array([[1.0, 2.0], [2.0, 4.0]]),
                                                         rhs=np.ones((2, 1)))),
    "cholesky_not_positive": run(lambda: tf.linalg.band_part(tf.raw_ops.Cholesky(input=-np.eye(2)), -1, 0)),
}
print(json.dumps(out))
