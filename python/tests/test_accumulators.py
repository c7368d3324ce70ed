"""tf.ConditionalAccumulator and tf.SparseConditionalAccumulator (issue 17): the cases of
tf_side/accumulator_cases.py give TensorFlow's values, shapes and error messages; indices
TensorFlow's merge cannot take (unsorted, repeated) are summed per index here; a take
waits for its gradients and ends when its step is cancelled."""
import ast
import sys
import threading

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script

sys.path.insert(0, TF_SIDE_DIR)
import accumulator_cases  # noqa: E402
import queue_cases  # noqa: E402


@pytest.fixture(scope="module")
def theirs():
    python = require_tensorflow("test_accumulators")
    return ast.literal_eval(run_tf_script(python, "queue_results.py", "accumulator_cases"))


@pytest.fixture(scope="module")
def ours():
    return queue_cases.run_all(tf, lambda g: tf.Session(graph=g), accumulator_cases.cases())


@pytest.mark.parametrize("case", sorted(accumulator_cases.cases()))
def test_same_as_tensorflow(case, ours, theirs):
    assert ours[case] == theirs[case]


def test_unsorted_and_repeated_indices_are_summed_per_index():
    with tf.Graph().as_default():
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[6, 2])
        ops = [acc.apply_grad([4, 1, 4], [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]),
               acc.apply_grad([1, 0], [[10.0, 10.0], [5.0, 5.0]])]
        indices, values, shape = acc.take_grad(2)
        with tf.Session() as sess:
            for op in ops:
                sess.run(op)
            got = sess.run([indices, values, shape])
    # 4: 1 + 3 from one gradient; 1: (2 + 10) / 2 gradients; 0: 5 from one.
    assert got[0].tolist() == [0, 1, 4]
    np.testing.assert_array_equal(got[1], [[5.0, 5.0], [6.0, 6.0], [4.0, 4.0]])
    assert got[2].tolist() == [6, 2]


def test_negative_index_is_refused_naming_it():
    with tf.Graph().as_default():
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[6, 2])
        apply = acc.apply_grad([0, -3], [[1.0, 1.0], [2.0, 2.0]])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="index of slice 1 is negative; index is -3"):
                sess.run(apply)
            assert sess.run(acc.num_accumulated()) == 0


def test_a_take_waits_for_its_gradients_and_is_cancelled_with_its_session():
    with tf.Graph().as_default():
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[3], shared_name="shared")
        take = acc.take_grad(2)
        apply = acc.apply_grad([2], [1.5])
        sess = tf.Session()
        got, errors = [], []

        def run_take():
            try:
                got.append(sess.run(take))
            except tf.errors.OpError as e:
                errors.append(e)
        waiter = threading.Thread(target=run_take)
        waiter.start()
        sess.run(apply)
        waiter.join(0.3)
        assert waiter.is_alive() and not got  # one gradient of two
        sess.run(apply)
        waiter.join(10)
        assert not waiter.is_alive() and got[0][0].tolist() == [2] and got[0][1].tolist() == [1.5]
        waiter = threading.Thread(target=run_take)
        waiter.start()
        waiter.join(0.3)
        assert waiter.is_alive()
        sess.close()
        waiter.join(10)
        assert not waiter.is_alive() and isinstance(errors[0], tf.errors.CancelledError), errors
