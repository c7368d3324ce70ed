"""TF 1.x queue-based input pipelines (issue 20): string/range/slice_input_producer with
num_epochs and shuffling, tf.train.batch / shuffle_batch (enqueue_many, dicts,
allow_smaller_final_batch), QueueRunner threads under a Coordinator. The cases of
tf_side/pipeline_cases.py give the same values and the same ending OutOfRange as TensorFlow."""
import ast
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script

sys.path.insert(0, TF_SIDE_DIR)
import pipeline_cases  # noqa: E402


@pytest.fixture(scope="module")
def theirs():
    python = require_tensorflow("test_input_pipeline")
    return ast.literal_eval(run_tf_script(python, "pipeline_results.py"))


@pytest.fixture(scope="module")
def ours():
    return pipeline_cases.run_all(tf, lambda g: tf.Session(graph=g))


@pytest.mark.parametrize("case", sorted(pipeline_cases.cases()))
def test_same_as_tensorflow(case, ours, theirs):
    assert ours[case] == theirs[case]


def test_count_up_to_counts_then_is_out_of_range():
    v = tf.Variable(np.int64(0), trainable=False)
    step = tf.count_up_to(v, 2)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert [sess.run(step), sess.run(step)] == [0, 1]
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
            sess.run(step)
        assert sess.run(v) == 2


def test_shuffled_epochs_each_hold_every_name_once():
    names = tf.train.string_input_producer(["a", "b", "c", "d", "e"], num_epochs=3, seed=9).dequeue_many(5)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        threads = tf.train.start_queue_runners(sess)
        epochs = [sess.run(names).tolist() for _ in range(3)]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(names)
        for t in threads:
            t.join(10)
    assert all(sorted(e) == [b"a", b"b", b"c", b"d", b"e"] for e in epochs)
    assert len({tuple(e) for e in epochs}) > 1, "every epoch in the same order: not reshuffled"


def test_empty_name_list_and_unknown_shapes_are_refused():
    with pytest.raises(ValueError, match="requires a non-null input tensor"):
        tf.train.string_input_producer([])
    with pytest.raises(ValueError, match="All shapes must be fully defined"):
        tf.train.batch([tf.placeholder(tf.float32)], batch_size=2)


def test_coordinator_stop_frees_threads_blocked_on_a_full_queue():
    i = tf.train.range_input_producer(1000, shuffle=False, capacity=4).dequeue()
    batch = tf.train.batch([i], batch_size=2, capacity=4, num_threads=3)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        first = sess.run(batch).tolist()  # three threads enqueue: any two of the first numbers
        assert len(first) == 2 and set(first) <= set(range(10))
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    assert not any(t.is_alive() for t in threads)
