"""TensorFlow's answers for test_array_composites.py: the Python-level array functions on fixed
inputs. Prints JSON: name -> [values (nested lists), dtype name]."""
import json

import numpy as np
import tensorflow as tf

X = np.arange(24.0).reshape(2, 3, 4)
v1 = tf.compat.v1

CASES = {
    "sequence_mask": lambda: tf.sequence_mask([1, 3, 0, 2]),
    "sequence_mask_maxlen_float": lambda: tf.sequence_mask([[1, 3], [0, 5]], maxlen=4, dtype=tf.float32),
    "linspace": lambda: v1.lin_space(0.5, 2.0, 4),
    "reverse": lambda: tf.reverse(X, [0, -1]),
    "roll": lambda: tf.roll(X, shift=[1, -1], axis=[1, 2]),
    "invert_permutation": lambda: tf.math.invert_permutation([2, 0, 3, 1]),
    "band_part": lambda: tf.linalg.band_part(X, 1, 0),
    "linalg_diag": lambda: tf.linalg.diag([[1, 2], [3, 4]]),
    "linalg_diag_part": lambda: tf.linalg.diag_part(X),
    "linalg_set_diag": lambda: tf.linalg.set_diag(X, [[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]]),
    "diag": lambda: v1.diag([1.0, 2.0]),
    "diag_part": lambda: v1.diag_part(np.arange(16).reshape(4, 4)),
    "shape_n": lambda: tf.concat(tf.shape_n([X, np.ones(5), 2.0], out_type=tf.int64), 0),
    "identity_n": lambda: tf.identity_n([X, [1, 2]])[1],
    "ensure_shape": lambda: tf.ensure_shape(X, [2, None, 4]),
    "broadcast_dynamic_shape": lambda: tf.broadcast_dynamic_shape([2, 1, 3], [4, 1]),
    "meshgrid_xy": lambda: tf.stack(tf.meshgrid([1, 2, 3], [10, 20])),
    "meshgrid_ij_3d": lambda: tf.stack(tf.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0], [6.0], indexing="ij")),
    "tensordot_int": lambda: tf.tensordot(X, np.arange(12.0).reshape(3, 4), 2),
    "tensordot_pairs": lambda: tf.tensordot(X, np.arange(6.0).reshape(2, 3), [[0, 1], [0, 1]]),
    "tensordot_outer": lambda: tf.tensordot(np.arange(3.0), np.arange(2.0), 0),
    "where_v2": lambda: tf.where([[True], [False]], X[0, :2, :], -1.0),
    "norm_euclidean": lambda: tf.norm(X - 11.5),
    "norm_axis_keepdims": lambda: tf.norm(X - 11.5, ord=1, axis=-1, keepdims=True),
    "norm_inf": lambda: tf.norm(X - 11.5, ord=np.inf, axis=1),
    "norm_fro": lambda: tf.norm(X, ord="fro", axis=[-2, -1]),
    "pad_reflect": lambda: tf.pad(X, [[0, 1], [2, 1], [0, 0]], "REFLECT"),
    "pad_symmetric": lambda: tf.pad(X, [[2, 0], [0, 3], [1, 4]], mode="symmetric"),
    "space_to_depth": lambda: v1.space_to_depth(np.arange(48.0).reshape(1, 4, 4, 3), 2),
    "unravel_index": lambda: tf.unravel_index([22, 41, 37], (7, 6)),
    "reverse_sequence": lambda: v1.reverse_sequence(X, [3, 1], seq_axis=2, batch_axis=0),
    "reverse_sequence_dims": lambda: v1.reverse_sequence(X, [2, 0, 3, 1], seq_dim=1, batch_dim=2),
    "depth_to_space": lambda: v1.depth_to_space(np.arange(48.0).reshape(1, 2, 2, 12), 2),
}
out = {}
for name, fn in CASES.items():
    value = fn()
    out[name] = [value.numpy().tolist(), value.dtype.name]
print(json.dumps(out))
