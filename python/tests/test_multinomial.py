"""tf.multinomial (Multinomial): class frequencies match the softmax of the logits (chi-square
with fixed seeds), -inf logits are never drawn, TensorFlow's seed semantics, shapes and dtypes,
and bad inputs refused with TensorFlow's error texts (tf_side/multinomial_errors.py)."""
import json

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script


def draw(logits, num_samples, runs=1, graph_seed=5, op_seed=9, **kwargs):
    with tf.Graph().as_default():
        tf.set_random_seed(graph_seed)
        t = tf.multinomial(logits, num_samples, seed=op_seed, **kwargs)
        with tf.Session() as sess:
            return [sess.run(t) for _ in range(runs)]


def test_frequencies_follow_the_softmax():
    probs = np.array([0.1, 0.2, 0.7])
    logits = np.array([np.log(probs) + 3.0, [0.0, 0.0, -np.inf]], np.float32)
    [samples] = draw(logits, 20000)
    counts = np.bincount(samples[0], minlength=3)
    chi2 = ((counts - 20000 * probs) ** 2 / (20000 * probs)).sum()
    assert chi2 < 13.82, counts  # 2 dof, 0.1% point
    row2 = np.bincount(samples[1], minlength=3)
    assert row2[2] == 0 and ((row2[:2] - 10000) ** 2 / 10000).sum() < 10.83, row2


def test_shapes_dtypes_and_seeds():
    logits = np.zeros((4, 6), np.float64)
    a = draw(logits, 7, runs=2, output_dtype=tf.int32)
    b = draw(logits, 7, runs=2, output_dtype=tf.int32)
    assert a[0].shape == (4, 7) and a[0].dtype == np.int32
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all() and not (a[0] == a[1]).all()
    assert draw(logits, 3)[0].dtype == np.int64
    assert draw(np.zeros((0, 3), np.float32), 2)[0].shape == (0, 2)
    assert draw(logits, 0)[0].shape == (4, 0)


@pytest.fixture(scope="module")
def tf_errors():
    return json.loads(run_tf_script(require_tensorflow("test_multinomial"), "multinomial_errors.py").splitlines()[-1])


@pytest.mark.parametrize("case, logits, n", [("negative_samples", np.zeros((2, 3), np.float32), -1),
                                             ("not_a_matrix", np.zeros((3,), np.float32), 2),
                                             ("no_classes", np.zeros((2, 0), np.float32), 2)])
def test_bad_inputs_fail_as_in_tensorflow(tf_errors, case, logits, n):
    with tf.Graph().as_default():
        # Fed, so that the kernel (not the shape function) answers, as TensorFlow's eager op.
        lp = tf.placeholder(tf.float32)
        np_ = tf.placeholder(tf.int32)
        t = tf.multinomial(lp, np_, seed=1)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(t, {lp: logits, np_: n})
    assert tf_errors[case] in e.value.message


def test_negative_constant_samples_fail_while_building():
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match="num_samples should be non-negative, got -3"):
            tf.multinomial(np.zeros((2, 3), np.float32), -3)


def test_not_differentiable():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0]])
        assert tf.gradients(tf.reduce_sum(tf.cast(tf.multinomial(x, 3, seed=1), tf.float32)), [x]) == [None]
