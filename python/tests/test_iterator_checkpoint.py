"""tf.data iterators checkpointed with tf.train.Saver (make_saveable_from_iterator): a
restored iterator, in a new graph and session or a new process, continues with exactly
the elements the saved one went on to give, and ends at the same point. The programs of
tf_side/iterator_checkpoint.py are also run by TensorFlow and compared element by element
(the elements before and after the checkpoint, the resumed ones and the checkpoint's key)."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script

_spec = importlib.util.spec_from_file_location("iterator_checkpoint", os.path.join(TF_SIDE_DIR, "iterator_checkpoint.py"))
programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(programs)

SHUFFLED = (programs.PARSE + "ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=2)"
            ".shuffle(6, seed=7).repeat(2).batch(4).prefetch(2)")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("iterator_checkpoint")
    programs.write_files(tf, str(directory))
    return str(directory)


@pytest.fixture(scope="module")
def tf_results(data_dir):
    python = require_tensorflow("test_iterator_checkpoint")
    out = os.path.join(data_dir, "tf_out.json")
    run_tf_script(python, "iterator_checkpoint.py", data_dir, out)
    with open(out) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def our_results(data_dir, tmp_path_factory):
    ckpt_dir = str(tmp_path_factory.mktemp("ckpt"))
    return {name: programs.resume(tf, name, data_dir, ckpt_dir) for name in programs.PROGRAMS}


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_restored_iterator_continues_where_it_stopped(our_results, name):
    kind, k, _ = programs.PROGRAMS[name]
    r = our_results[name]
    assert len(r["before"]) == (5 if name == "past_end" else k)
    assert r["end"] == "OutOfRange"
    assert r["resumed"] == r["after"], name  # values, dtypes and shapes of every element
    assert r["resumed_end"] == "OutOfRange"
    assert r["keys"] == ["%s:0_STATE" % ("OneShotIterator" if kind == "one_shot" else "IteratorV2")]


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_checkpointed_sequence_matches_tensorflow(our_results, tf_results, name):
    ours, theirs = our_results[name], tf_results[name]
    for part in ("before", "after", "end", "resumed", "resumed_end", "keys"):
        assert ours[part] == theirs[part], (name, part, ours[part], theirs[part])


@pytest.mark.parametrize("name,first", [("at_end", 0), ("past_end", 1)])
def test_state_saved_at_the_end_restores_to_the_end(our_results, name, first):
    r = our_results[name]
    assert [e[0]["value"] for e in r["before"]] == [[first + i] for i in range(5)]
    assert r["after"] == r["resumed"] == []
    assert r["resumed_end"] == "OutOfRange"


def test_the_batched_pipeline_continues_mid_file_and_mid_epoch(our_results):
    r = our_results["tfrecord_pipeline"]
    # 15 records twice, in batches of 4: 8 batches; 3 before the checkpoint.
    assert len(r["before"]) + len(r["after"]) == 8
    x, name = r["after"][0]
    assert x["shape"] == [4, 2] and name["shape"] == [4]
    assert name["value"][0] == "file2-rec2"  # record 12 of epoch 1
    assert r["after"][-1][1]["shape"] == [2]  # the remainder batch


def _drain_values(sess, nxt):
    out = []
    while True:
        try:
            x, names = sess.run(nxt)
        except tf.errors.OutOfRangeError:
            return out
        out.append((x.tolist(), [n.decode() for n in names], list(x.shape)))


def _shuffled_pipeline(data_dir):
    scope = {"tf": tf, "os": os, "DIR": data_dir}
    exec(SHUFFLED, scope)  # noqa: S102
    it = tf.data.make_initializable_iterator(scope["ds"])
    tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, tf.data.experimental.make_saveable_from_iterator(it))
    return it, it.get_next(), tf.train.Saver()


RESTARTED_WORKER = """
import json, os, sys
import tensorweave as tf
sys.path.insert(0, {tests!r})
from test_iterator_checkpoint import _drain_values, _shuffled_pipeline
it, nxt, saver = _shuffled_pipeline({data!r})
with tf.Session() as sess:
    sess.run(it.initializer)
    saver.restore(sess, tf.train.latest_checkpoint({ckpt!r}))
    print(json.dumps(_drain_values(sess, nxt)))
"""


def test_shuffled_parallel_pipeline_resumes_in_a_restarted_worker(data_dir, tmp_path):
    """TFRecord -> parallel map -> seeded shuffle -> repeat(2) -> batch -> prefetch: the
    shuffle buffer, its generator, the prefetched batches and the parallel map's results
    in flight are all in the checkpoint, so the continuation is bit-identical."""
    ckpt = str(tmp_path / "ckpt")
    os.makedirs(ckpt)
    g = tf.Graph()
    with g.as_default():
        it, nxt, saver = _shuffled_pipeline(data_dir)
        with tf.Session(graph=g) as sess:
            sess.run(it.initializer)
            before = [sess.run(nxt) for _ in range(3)]
            saver.save(sess, os.path.join(ckpt, "model"), global_step=3)
            after = _drain_values(sess, nxt)
    seen = [n.decode() for _, names in before for n in names] + [n for _, names, _ in after for n in names]
    assert sorted(seen) == sorted(["file%d-rec%d" % (i, j) for i in range(3) for j in range(5)] * 2)
    assert len(after) == 5 and after[-1][2] == [2, 2]
    # A new graph and session in this process.
    g = tf.Graph()
    with g.as_default():
        it, nxt, saver = _shuffled_pipeline(data_dir)
        with tf.Session(graph=g) as sess:
            sess.run(it.initializer)
            saver.restore(sess, tf.train.latest_checkpoint(ckpt))
            assert _drain_values(sess, nxt) == after
    # A fresh process: the restarted worker.
    script = RESTARTED_WORKER.format(tests=os.path.dirname(os.path.abspath(__file__)), data=data_dir, ckpt=ckpt)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    resumed = [tuple(e) for e in json.loads(done.stdout.strip().splitlines()[-1])]
    assert [list(e) for e in resumed] == [list(e) for e in after]


def _save_range(tmp_path, source="tf.data.Dataset.range(10).map(lambda x: x + 1)", k=3):
    g = tf.Graph()
    with g.as_default():
        scope = {"tf": tf}
        exec("ds = " + source, scope)  # noqa: S102
        it = tf.data.make_one_shot_iterator(scope["ds"])
        saver = tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])
        nxt = it.get_next()
        with tf.Session(graph=g) as sess:
            for _ in range(k):
                sess.run(nxt)
            return saver.save(sess, str(tmp_path / "model"))


def _restore_into(source, path):
    g = tf.Graph()
    with g.as_default():
        scope = {"tf": tf, "np": __import__("numpy")}
        exec("ds = " + source, scope)  # noqa: S102
        it = tf.data.make_one_shot_iterator(scope["ds"])
        saver = tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])
        nxt = it.get_next()
        with tf.Session(graph=g) as sess:
            saver.restore(sess, path)
            return sess.run(nxt)


def test_explicit_var_list_of_a_saveable(tmp_path):
    path = _save_range(tmp_path)
    assert _restore_into("tf.data.Dataset.range(10).map(lambda x: x + 1)", path) == 4


def test_restore_into_another_pipeline_fails_naming_the_difference(tmp_path):
    path = _save_range(tmp_path)
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _restore_into("tf.data.Dataset.range(10).filter(lambda x: x > 1)", path)
    message = str(e.value)
    assert "Failed to restore dataset iterator from checkpoint" in message
    assert "was saved from a Map dataset, but this pipeline has a Filter dataset there" in message
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"cannot restore an iterator of elements \(int64 \[\]\) "
                                                             r"into an iterator of elements \(float32 \[\]\)"):
        _restore_into("tf.data.Dataset.from_tensor_slices(np.zeros(5, np.float32))", path)


def test_restore_before_the_initializer_fails_as_tensorflow(tmp_path, data_dir):
    ckpt = str(tmp_path / "ckpt")
    os.makedirs(ckpt)
    g = tf.Graph()
    with g.as_default():
        it, nxt, saver = _shuffled_pipeline(data_dir)
        with tf.Session(graph=g) as sess:
            sess.run(it.initializer)
            sess.run(nxt)
            path = saver.save(sess, os.path.join(ckpt, "model"))
    g = tf.Graph()
    with g.as_default():
        it, nxt, saver = _shuffled_pipeline(data_dir)
        with tf.Session(graph=g) as sess:
            with pytest.raises(tf.errors.FailedPreconditionError,
                               match="Restore\\(\\) failed because the iterator has not been initialized"):
                saver.restore(sess, path)
            sess.run(it.initializer)  # then it works
            saver.restore(sess, path)
            assert sess.run(nxt)[0].shape == (4, 2)


def test_variables_and_iterator_in_one_checkpoint(tmp_path):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.5, name="v")
        it = tf.data.make_one_shot_iterator(tf.data.Dataset.range(6))
        saveable = tf.data.experimental.make_saveable_from_iterator(it)
        tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, saveable)
        nxt = it.get_next()
        saver = tf.train.Saver()  # the global variables and SAVEABLE_OBJECTS
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(nxt)
            path = saver.save(sess, str(tmp_path / "model"))
            sess.run(v.assign(7.0))
            assert sess.run(nxt) == 1
            saver.restore(sess, path)  # both go back
            assert sess.run(v) == 1.5
            assert sess.run(nxt) == 1
    assert sorted(n for n, _ in tf.train.list_variables(path)) == ["OneShotIterator:0_STATE", "v"]


def test_contrib_data_and_bad_arguments():
    assert tf.contrib.data.make_saveable_from_iterator is tf.data.experimental.make_saveable_from_iterator
    with pytest.raises(TypeError, match="expects a tf.data iterator"):
        tf.data.experimental.make_saveable_from_iterator(tf.constant(1))


def _chief_graph():
    step = tf.train.get_or_create_global_step()
    it = tf.data.make_one_shot_iterator(tf.data.Dataset.range(100).map(lambda x: x * 3).shuffle(10, seed=5)
                                        .batch(2).prefetch(2))
    tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, tf.data.experimental.make_saveable_from_iterator(it))
    batch = it.get_next()
    with tf.control_dependencies([batch]):
        train = step.assign_add(1)
    return batch, train


def test_monitored_training_session_chief_resumes_its_pipeline(tmp_path):
    ckpt = str(tmp_path)
    g = tf.Graph()
    with g.as_default():
        batch, train = _chief_graph()
        seen = []
        with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, save_checkpoint_steps=100,
                                               hooks=[tf.train.StopAtStepHook(last_step=4)]) as sess:
            while not sess.should_stop():
                seen.append(sess.run([batch, train])[0].tolist())
        # What the pipeline would have given next, had the chief not stopped.
        with tf.Session(graph=g) as plain:
            plain.run(tf.global_variables_initializer())
            uninterrupted = [plain.run(batch).tolist() for _ in range(7)]
    assert len(seen) == 4 and uninterrupted[:4] == seen
    assert tf.train.latest_checkpoint(ckpt).endswith("model.ckpt-4")
    assert "OneShotIterator:0_STATE" in [n for n, _ in tf.train.list_variables(tf.train.latest_checkpoint(ckpt))]
    # A restarted chief (new graph) restores step 4 and the iterator: batches 5..7.
    g = tf.Graph()
    with g.as_default():
        batch, train = _chief_graph()
        with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, save_checkpoint_steps=100,
                                               hooks=[tf.train.StopAtStepHook(last_step=7)]) as sess:
            resumed = []
            while not sess.should_stop():
                resumed.append(sess.run([batch, train])[0].tolist())
    assert resumed == uninterrupted[4:]


def test_a_file_cut_short_after_the_save_fails_the_restore_clearly(tmp_path):
    """The TFRecord reader restores by seeking to the saved byte offset; a file now too
    short for it fails with FailedPrecondition naming the file, not a silent restart."""
    path = str(tmp_path / "cut.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(6):
            w.write(b"record %d" % i)

    def pipeline():
        it = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset(path))
        return it.get_next(), tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])

    g = tf.Graph()
    with g.as_default():
        nxt, saver = pipeline()
        with tf.Session(graph=g) as sess:
            assert [sess.run(nxt) for _ in range(4)][-1] == b"record 3"
            ckpt = saver.save(sess, str(tmp_path / "model"))
    g = tf.Graph()
    with g.as_default():
        nxt, saver = pipeline()
        with tf.Session(graph=g) as sess:
            saver.restore(sess, ckpt)
            assert sess.run(nxt) == b"record 4"
    with open(path, "r+b") as f:
        f.truncate(30)
    g = tf.Graph()
    with g.as_default():
        nxt, saver = pipeline()
        with tf.Session(graph=g) as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="cannot restore the reader of '.*cut.tfrecord' "
                                                                        "to offset 96"):  # 4 records of 12 + 8 + 4 bytes
                saver.restore(sess, ckpt)


def test_a_failed_call_in_flight_fails_again_after_the_restore(tmp_path):
    """parallel map saves each buffered call's error beside the results: the restored
    iterator gives the same elements, then the same error in its turn."""
    def pipeline():
        ds = tf.data.Dataset.range(6).map(lambda x: tf.gather(tf.constant([10, 11, 12], tf.int64), x),
                                          num_parallel_calls=4)
        it = tf.data.make_one_shot_iterator(ds)
        return it.get_next(), tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])

    def rest(sess, nxt):
        values = []
        while True:
            try:
                values.append(int(sess.run(nxt)))
            except tf.errors.InvalidArgumentError as e:
                return values, str(e).split(": ")[-1]

    g = tf.Graph()
    with g.as_default():
        nxt, saver = pipeline()
        with tf.Session(graph=g) as sess:
            assert sess.run(nxt) == 10
            ckpt = saver.save(sess, str(tmp_path / "model"))  # calls for 1, 2, 3 (fails) in flight
            before_restore = rest(sess, nxt)
    assert before_restore == ([11, 12], "indices[0] = 3 is not in [0, 3)")
    g = tf.Graph()
    with g.as_default():
        nxt, saver = pipeline()
        with tf.Session(graph=g) as sess:
            saver.restore(sess, ckpt)
            assert rest(sess, nxt) == before_restore


@pytest.mark.parametrize("k", [3, 14])  # in the first epoch, in the second
def test_unseeded_shuffle_resumes_its_later_epochs_too(tmp_path, k):
    """The shuffle's random seeds are in the checkpoint: after a restore the epochs repeat
    makes later reshuffle as they would have without the restart."""
    def pipeline():
        it = tf.data.make_one_shot_iterator(tf.data.Dataset.range(10).shuffle(4).repeat(3))
        return it.get_next(), tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])

    g = tf.Graph()
    with g.as_default():
        nxt, saver = pipeline()
        with tf.Session(graph=g) as sess:
            before = [int(sess.run(nxt)) for _ in range(k)]
            ckpt = saver.save(sess, str(tmp_path / "model"))
            after = [int(v) for v in _drain_values_plain(sess, nxt)]
    assert sorted(before + after) == sorted(list(range(10)) * 3)
    g = tf.Graph()
    with g.as_default():
        nxt, saver = pipeline()
        with tf.Session(graph=g) as sess:
            saver.restore(sess, ckpt)
            assert [int(v) for v in _drain_values_plain(sess, nxt)] == after


def _drain_values_plain(sess, nxt):
    out = []
    while True:
        try:
            out.append(sess.run(nxt))
        except tf.errors.OutOfRangeError:
            return out


def test_a_pipeline_on_another_task_resumes_from_the_checkpoint(ps_and_worker, tmp_path):
    """The pipeline (its map function too) runs on the ps task, the Saver's ops on the
    worker the session talks to: the state crosses tasks both ways. After reading past the
    checkpoint, a new session restores it and gets exactly the elements that followed it."""
    cluster, worker = ps_and_worker

    def build():
        with tf.device("/job:ps/task:0"):
            ds = tf.data.Dataset.range(20).map(lambda x: x * 3).shuffle(5, seed=2).batch(3)
            it = tf.data.make_initializable_iterator(ds)
        return it, it.get_next(), tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])

    with tf.Graph().as_default():
        it, nxt, saver = build()
        with tf.Session(worker.target) as sess:
            sess.run(it.initializer)
            before = [sess.run(nxt).tolist() for _ in range(2)]
            path = saver.save(sess, str(tmp_path / "model"))
            after = [b.tolist() for b in _drain_values_plain(sess, nxt)]
    assert sorted(v for b in before + after for v in b) == [3 * i for i in range(20)]
    assert [len(b) for b in after] == [3, 3, 3, 3, 2]
    with tf.Graph().as_default():
        it, nxt, saver = build()
        with tf.Session(worker.target) as sess:
            sess.run(it.initializer)
            assert sess.run(nxt).tolist() == before[0]  # a fresh start, then back to the checkpoint
            saver.restore(sess, path)
            assert [b.tolist() for b in _drain_values_plain(sess, nxt)] == after
