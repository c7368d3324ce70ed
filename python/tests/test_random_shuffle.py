"""tf.random_shuffle (RandomShuffle): rows permuted, never changed; TensorFlow's seed
semantics (graph seed + op seed: the same sequence of shuffles in every fresh graph); each
position equally likely (chi-square with a fixed seed); not differentiable, as in TensorFlow."""
import numpy as np
import pytest

import tensorweave as tf


def shuffles(value, runs, graph_seed=None, op_seed=None):
    with tf.Graph().as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        t = tf.random_shuffle(value, seed=op_seed)
        with tf.Session() as sess:
            return [sess.run(t) for _ in range(runs)]


@pytest.mark.parametrize("value", [np.arange(10.0), np.arange(24).reshape(6, 4), np.array([True, False, True]),
                                   np.zeros((0, 3), np.float32), np.array(5.0), np.arange(3).reshape(1, 3)])
def test_rows_are_permuted_not_changed(value):
    for out in shuffles(value, 3, graph_seed=1):
        assert out.shape == value.shape and out.dtype == value.dtype
        if value.ndim:
            rows = (len(value), int(np.prod(value.shape[1:])))
            assert sorted(map(tuple, out.reshape(rows).tolist())) == sorted(map(tuple, value.reshape(rows).tolist()))
        else:
            assert out == value


def test_seeds_repeat_the_sequence_and_runs_differ():
    x = np.arange(20)
    a = shuffles(x, 3, graph_seed=7, op_seed=3)
    b = shuffles(x, 3, graph_seed=7, op_seed=3)
    assert all((p == q).all() for p, q in zip(a, b))
    assert not (a[0] == a[1]).all()  # the next run draws the next shuffle
    assert not (shuffles(x, 1, graph_seed=8, op_seed=3)[0] == a[0]).all()


def test_each_position_equally_likely():
    runs = shuffles(np.arange(5), 4000, graph_seed=2024, op_seed=1)
    # Where element 0 lands: uniform over 5 positions; chi-square with 4 dof below its 0.1% point.
    counts = np.bincount([int(np.argmax(r == 0)) for r in runs], minlength=5)
    expected = len(runs) / 5
    assert ((counts - expected) ** 2 / expected).sum() < 18.47, counts


def test_not_differentiable():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0, 3.0])
        assert tf.gradients(tf.reduce_sum(tf.random_shuffle(x, seed=1)), [x]) == [None]
