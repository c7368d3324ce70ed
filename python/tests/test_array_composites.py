"""The Python-level array functions of issue 24's second part (tf.sequence_mask, tf.lin_space,
tf.meshgrid, tf.tensordot, tf.where_v2, tf.norm, tf.shape_n, tf.identity_n, tf.ensure_shape,
tf.reverse, tf.roll, tf.invert_permutation, tf.linalg.band_part/diag/diag_part/set_diag,
tf.diag, tf.diag_part) compared with TensorFlow's on fixed inputs (tf_side/
array_composite_cases.py): values and dtypes. The ops under them are compared on random
inputs in the oracle tests."""
import json

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

X = np.arange(24.0).reshape(2, 3, 4)

CASES = {
    "sequence_mask": lambda: tf.sequence_mask([1, 3, 0, 2]),
    "sequence_mask_maxlen_float": lambda: tf.sequence_mask([[1, 3], [0, 5]], maxlen=4, dtype=tf.float32),
    "linspace": lambda: tf.lin_space(0.5, 2.0, 4),
    "reverse": lambda: tf.reverse(X, [0, -1]),
    "roll": lambda: tf.roll(X, shift=[1, -1], axis=[1, 2]),
    "invert_permutation": lambda: tf.invert_permutation([2, 0, 3, 1]),
    "band_part": lambda: tf.linalg.band_part(X, 1, 0),
    "linalg_diag": lambda: tf.linalg.diag([[1, 2], [3, 4]]),
    "linalg_diag_part": lambda: tf.linalg.diag_part(X),
    "linalg_set_diag": lambda: tf.linalg.set_diag(X, [[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]]),
    "diag": lambda: tf.diag([1.0, 2.0]),
    "diag_part": lambda: tf.diag_part(np.arange(16).reshape(4, 4)),
    "shape_n": lambda: tf.concat(tf.shape_n([X, np.ones(5), 2.0], out_type=tf.int64), 0),
    "identity_n": lambda: tf.identity_n([X, [1, 2]])[1],
    "ensure_shape": lambda: tf.ensure_shape(X, [2, None, 4]),
    "broadcast_dynamic_shape": lambda: tf.broadcast_dynamic_shape([2, 1, 3], [4, 1]),
    "meshgrid_xy": lambda: tf.stack(tf.meshgrid([1, 2, 3], [10, 20])),
    "meshgrid_ij_3d": lambda: tf.stack(tf.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0], [6.0], indexing="ij")),
    "tensordot_int": lambda: tf.tensordot(X, np.arange(12.0).reshape(3, 4), 2),
    "tensordot_pairs": lambda: tf.tensordot(X, np.arange(6.0).reshape(2, 3), [[0, 1], [0, 1]]),
    "tensordot_outer": lambda: tf.tensordot(np.arange(3.0), np.arange(2.0), 0),
    "where_v2": lambda: tf.where_v2([[True], [False]], X[0, :2, :], -1.0),
    "norm_euclidean": lambda: tf.norm(X - 11.5),
    "norm_axis_keepdims": lambda: tf.norm(X - 11.5, ord=1, axis=-1, keepdims=True),
    "norm_inf": lambda: tf.norm(X - 11.5, ord=np.inf, axis=1),
    "norm_fro": lambda: tf.norm(X, ord="fro", axis=[-2, -1]),
    "pad_reflect": lambda: tf.pad(X, [[0, 1], [2, 1], [0, 0]], "REFLECT"),
    "pad_symmetric": lambda: tf.pad(X, [[2, 0], [0, 3], [1, 4]], mode="symmetric"),
    "space_to_depth": lambda: tf.space_to_depth(np.arange(48.0).reshape(1, 4, 4, 3), 2),
    "unravel_index": lambda: tf.unravel_index([22, 41, 37], (7, 6)),
    "reverse_sequence": lambda: tf.reverse_sequence(X, [3, 1], seq_axis=2, batch_axis=0),
    "reverse_sequence_dims": lambda: tf.reverse_sequence(X, [2, 0, 3, 1], seq_dim=1, batch_dim=2),
    "depth_to_space": lambda: tf.depth_to_space(np.arange(48.0).reshape(1, 2, 2, 12), 2),
}


@pytest.fixture(scope="module")
def theirs():
    python = require_tensorflow("test_array_composites")
    return json.loads(run_tf_script(python, "array_composite_cases.py").strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(theirs, name):
    with tf.Graph().as_default():
        t = CASES[name]()
        with tf.Session() as sess:
            got = np.asarray(sess.run(t))
    values, dtype = theirs[name]
    assert t.dtype.name == dtype
    if got.dtype.kind == "f":  # sums (tensordot, norm) may round in another order
        np.testing.assert_allclose(got, np.array(values, dtype=got.dtype), rtol=1e-12)
    else:
        np.testing.assert_array_equal(got, np.array(values, dtype=got.dtype))
    assert got.shape == np.array(values).shape


def test_sequence_mask_needs_a_scalar_maxlen():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="maxlen must be scalar"):
            tf.sequence_mask([1, 2], maxlen=[3, 4])


def test_ensure_shape_fails_at_run_time_on_a_fed_shape():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        y = tf.ensure_shape(x, [2, None])
        with tf.Session() as sess:
            assert sess.run(y, {x: np.ones((2, 7), np.float32)}).shape == (2, 7)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"is not compatible with expected shape"):
                sess.run(y, {x: np.ones((3, 7), np.float32)})


@pytest.mark.parametrize("a, b", [((2, 1, 3), (4, 1)), ((), (5,)), ((1,), (1, 0)), ((3,), (3,))])
def test_broadcast_static_shape_is_numpys(a, b):
    assert tf.broadcast_static_shape(tf.TensorShape(a), tf.TensorShape(b)).as_list() == list(np.broadcast_shapes(a, b))


def test_broadcast_static_shape_unknown_and_incompatible_dims():
    assert tf.broadcast_static_shape(tf.TensorShape([None, 1]), tf.TensorShape([3, 4])).as_list() == [3, 4]
    assert tf.broadcast_static_shape(tf.TensorShape([None]), tf.TensorShape([1])).as_list() == [None]
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tf.broadcast_static_shape(tf.TensorShape([2, 3]), tf.TensorShape([4]))
