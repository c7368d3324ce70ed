"""tf.data pipelines against TensorFlow: every program of tf_side/data_pipelines.py built
the same way by both (graph mode), the full element sequences compared (values, dtypes,
shapes, OutOfRange at the end) on files TensorFlow wrote; then what cannot be compared
element by element (shuffle orders, threads, errors)."""
import importlib.util
import json
import os
import threading
import time

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script

_spec = importlib.util.spec_from_file_location("data_pipelines", os.path.join(TF_SIDE_DIR, "data_pipelines.py"))
programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(programs)


@pytest.fixture(scope="module")
def tf_results(tmp_path_factory):
    python = require_tensorflow("test_data_pipelines")
    directory = tmp_path_factory.mktemp("tf_data")
    out = directory / "tf_out.json"
    run_tf_script(python, "data_pipelines.py", str(directory), str(out))
    return str(directory), json.loads(out.read_text())


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_pipeline_matches_tensorflow(tf_results, name):
    directory, theirs = tf_results
    kind, source = programs.PROGRAMS[name]
    ours = programs.drain(tf, source, directory, kind)
    want = theirs[name]
    assert ours["types"] == want["types"]
    assert ours["shapes"] == want["shapes"]
    assert len(ours["elements"]) == len(want["elements"]), (ours["elements"], want["elements"])
    for i, (a, b) in enumerate(zip(ours["elements"], want["elements"])):
        assert a == b, (name, i, a, b)
    assert ours["end"] == want["end"] == "OutOfRange: End of sequence"


def _drain(next_element, sess):
    out = []
    while True:
        try:
            out.append(sess.run(next_element))
        except tf.errors.OutOfRangeError:
            return out


def _shuffled(seed, buffer_size=100, epochs=1, reshuffle=None):
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.range(50).shuffle(buffer_size, seed=seed, reshuffle_each_iteration=reshuffle).repeat(epochs)
        it = tf.compat.v1.data.make_one_shot_iterator(ds)
        with tf.Session(graph=g) as sess:
            values = _drain(it.get_next(), sess)
    return [list(values[i * 50:(i + 1) * 50]) for i in range(epochs)]


def test_shuffle_is_a_seeded_reproducible_permutation():
    first = _shuffled(7)[0]
    assert sorted(first) == list(range(50))
    assert first != list(range(50))
    assert _shuffled(7)[0] == first
    assert _shuffled(8)[0] != first


def test_shuffle_reshuffles_each_epoch_unless_told_not_to():
    epochs = _shuffled(3, epochs=3)
    assert all(sorted(e) == list(range(50)) for e in epochs)
    assert epochs[0] != epochs[1] and epochs[1] != epochs[2]
    same = _shuffled(3, epochs=2, reshuffle=False)
    assert same[0] == same[1]


def test_small_shuffle_buffer_keeps_elements_near_their_place():
    order = _shuffled(11, buffer_size=2)[0]
    assert sorted(order) == list(range(50))
    assert all(order[i] <= i + 1 for i in range(50))  # A buffer of 2 moves elements back only.


def test_parallel_map_gives_the_serial_order():
    def run(calls):
        g = tf.Graph()
        with g.as_default():
            ds = tf.data.Dataset.range(200).map(lambda x: tf.cast(x, tf.float32) * 1.5 + tf.sqrt(tf.cast(x, tf.float32)),
                                                num_parallel_calls=calls)
            with tf.Session(graph=g) as sess:
                return _drain(tf.compat.v1.data.make_one_shot_iterator(ds).get_next(), sess)
    serial = run(None)
    assert len(serial) == 200
    np.testing.assert_array_equal(run(8), serial)


def test_initializable_iterator_restarts_with_a_fed_value():
    g = tf.Graph()
    with g.as_default():
        limit = tf.placeholder(tf.int64, [])
        it = tf.data.Dataset.range(limit).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session(graph=g) as sess:
            sess.run(it.initializer, feed_dict={limit: 3})
            assert _drain(nxt, sess) == [0, 1, 2]
            sess.run(it.initializer, feed_dict={limit: 5})
            assert _drain(nxt, sess) == [0, 1, 2, 3, 4]


def test_get_next_before_initializer_fails_as_tensorflow():
    g = tf.Graph()
    with g.as_default():
        it = tf.data.Dataset.range(3).make_initializable_iterator()
        with tf.Session(graph=g) as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="iterator has not been initialized"):
                sess.run(it.get_next())


def test_batch_of_mismatched_shapes_fails_with_tensorflows_message():
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.range(1, 4).map(lambda x: tf.fill(tf.reshape(x, [1]), x)).batch(2)
        nxt = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
        with tf.Session(graph=g) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Cannot batch tensors with different shapes in component 0. "
                                     r"First element had shape \[1\] and element 1 had shape \[2\]."):
                sess.run(nxt)


def test_missing_file_fails_naming_it(tmp_path):
    g = tf.Graph()
    with g.as_default():
        missing = str(tmp_path / "missing.tfrecord")
        nxt = tf.compat.v1.data.make_one_shot_iterator(tf.data.TFRecordDataset(missing)).get_next()
        with tf.Session(graph=g) as sess:
            with pytest.raises(tf.errors.NotFoundError, match="missing.tfrecord"):
                sess.run(nxt)


def test_filter_predicate_must_be_a_scalar_bool():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="`predicate` return type must be convertible to a scalar boolean"):
            tf.data.Dataset.range(3).filter(lambda x: x)


def test_iterator_rejects_a_dataset_of_other_types():
    with tf.Graph().as_default():
        it = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
        with pytest.raises(TypeError, match="Expected output types"):
            it.make_initializer(tf.data.Dataset.from_tensors(1.0))


def test_map_function_returning_none_fails_clearly():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="returned None"):
            tf.data.Dataset.range(3).map(lambda x: None)


def test_functions_live_in_the_graph_library():
    g = tf.Graph()
    with g.as_default():
        tf.data.Dataset.range(3).map(lambda x: x + 1).filter(lambda x: x > 1)
    names = [f.signature.name for f in g.as_graph_def().library.function]
    assert len(names) == 2 and names[0].startswith("Dataset_map") and names[1].startswith("Dataset_filter")


def test_monitored_session_loop_ends_at_the_end_of_the_data():
    g = tf.Graph()
    with g.as_default():
        step = tf.train.get_or_create_global_step()
        batch = tf.compat.v1.data.make_one_shot_iterator(tf.data.Dataset.range(10).batch(3)).get_next()
        total = tf.Variable(0, dtype=tf.int64)
        train = tf.group(total.assign_add(tf.reduce_sum(batch)), step.assign_add(1))
        seen = 0
        with tf.train.MonitoredTrainingSession() as sess:
            while not sess.should_stop():
                sess.run(train)
                seen += 1
    assert seen == 4


def test_close_with_a_running_prefetch_thread_returns_promptly():
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.range(10 ** 9).map(lambda x: x * 2).prefetch(16)
        nxt = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
        sess = tf.Session(graph=g)
        assert sess.run(nxt) == 0
        time.sleep(0.2)  # The prefetch thread fills its buffer and waits.
        start = time.time()
        done = threading.Event()

        def close():
            sess.close()
            done.set()
        threading.Thread(target=close, daemon=True).start()
        assert done.wait(10), "sess.close() hung with a prefetch thread running"
        assert time.time() - start < 5
