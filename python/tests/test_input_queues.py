"""RandomShuffleQueue and dequeue_up_to (issue 20): the cases of tf_side/queue_cases.py run
here and in TensorFlow give the same values, errors and messages (a shuffle's order is
compared as a set); our own seeded shuffles repeat, and min_after_dequeue holds a dequeue."""
import ast
import sys
import threading
import time

import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script

sys.path.insert(0, TF_SIDE_DIR)
import queue_cases  # noqa: E402


@pytest.fixture(scope="module")
def theirs():
    python = require_tensorflow("test_input_queues")
    return ast.literal_eval(run_tf_script(python, "queue_results.py"))


@pytest.fixture(scope="module")
def ours():
    return queue_cases.run_all(tf, lambda g: tf.Session(graph=g))


@pytest.mark.parametrize("case", sorted(queue_cases.cases()))
def test_same_as_tensorflow(case, ours, theirs):
    assert ours[case] == theirs[case]


def _shuffled_order(seed):
    with tf.Graph().as_default():
        q = tf.RandomShuffleQueue(50, 10, tf.int32, shapes=[[]], seed=seed)
        with tf.Session() as sess:
            sess.run(q.enqueue_many([list(range(40))]))
            return sess.run(q.dequeue_many(30)).tolist()


def test_a_seeded_shuffle_repeats_and_shuffles():
    first = _shuffled_order(11)
    assert first == _shuffled_order(11)
    assert first != sorted(first) and first != _shuffled_order(12)


def test_min_after_dequeue_holds_a_dequeue_until_an_element_arrives():
    q = tf.RandomShuffleQueue(10, 2, tf.int32, shapes=[[]], seed=1)
    enqueue = q.enqueue(tf.placeholder_with_default(7, []))
    got = []
    with tf.Session() as sess:
        sess.run(q.enqueue_many([[1, 2]]))
        reader = threading.Thread(target=lambda: got.append(sess.run(q.dequeue())))
        reader.start()
        time.sleep(0.5)
        assert not got, "dequeued while only min_after_dequeue elements were left"
        sess.run(enqueue)
        reader.join(10)
        assert len(got) == 1 and got[0] in (1, 2, 7)
        assert sess.run(q.size()) == 2


def test_static_shapes_of_dequeued_components():
    q = tf.RandomShuffleQueue(10, 0, [tf.float32, tf.string], shapes=[[3], []])
    assert [t.shape.as_list() for t in q.dequeue()] == [[3], []]
    assert [t.shape.as_list() for t in q.dequeue_many(4)] == [[4, 3], [4]]
    assert [t.shape.as_list() for t in q.dequeue_up_to(4)] == [[None, 3], [None]]


def test_min_after_dequeue_must_be_below_capacity():
    q = tf.RandomShuffleQueue(4, 4, tf.int32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="min_after_dequeue 4 must be less than capacity 4"):
            sess.run(q.size())
