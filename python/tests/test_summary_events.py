"""Event files both ways. Ours are read by TensorBoard's own EventAccumulator and by TF's
summary_iterator (tf_side/read_events.py): every scalar, histogram, image, text value, the
graph, the steps and wall times. TF's (tests/data/tf_events, written by TF's FileWriter) are
read by our summary_iterator. Damaged files raise DataLossError naming the file."""
import glob
import json
import os
import shutil
import time

import numpy as np
import pytest

import tensorweave as tf
from summary_checks import assert_values_equal, decode_png
from tf_peer import require_tensorflow, run_tf_script

TF_EVENTS = os.path.join(os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                         "tests", "data", "tf_events")
STEPS = [0, 1, 2, 5, 10]


def _events(path):
    return list(tf.compat.v1.train.summary_iterator(path))


def _write_run(logdir):
    """A small training-like run; returns what was written, to check against the readers."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [], name="x")
    tf.summary.scalar("loss", x)
    tf.summary.scalar("accuracy", 1.0 - x / 10.0, family="metrics")
    weights = tf.placeholder(tf.float32, [50], name="weights_in")
    tf.summary.histogram("weights", weights)
    picture = tf.placeholder(tf.uint8, [1, 4, 5, 3], name="picture_in")
    tf.summary.image("picture", picture)
    tf.summary.text("note", tf.constant("hello"))
    merged = tf.summary.merge_all()
    expected = {"loss": [], "metrics/metrics/accuracy": [], "weights": [], "picture": []}
    with tf.summary.FileWriter(logdir, graph=tf.get_default_graph(), flush_secs=0.2) as writer:
        writer.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 0)
        with tf.Session() as sess:
            for step in STEPS:
                loss = 3.0 / (step + 1)
                w = np.linspace(-1.0, 1.0, 50).astype(np.float32) * (step + 1)
                pixels = (np.arange(60, dtype=np.int64).reshape(1, 4, 5, 3) * (step + 3) % 256).astype(np.uint8)
                writer.add_summary(sess.run(merged, {x: loss, weights: w, picture: pixels}), global_step=step)
                expected["loss"].append(np.float32(loss))
                expected["metrics/metrics/accuracy"].append(np.float32(1.0) - np.float32(loss) / np.float32(10.0))
                expected["weights"].append(w)
                expected["picture"].append(pixels[0])
    return expected


@pytest.fixture(scope="module")
def our_run(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("ours"))
    before = time.time()
    expected = _write_run(logdir)
    return logdir, expected, before, time.time()


def test_file_name_version_and_order(our_run):
    logdir, _, before, after = our_run
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    name = os.path.basename(path)
    seconds, host = name.split(".")[3], name.split(".", 4)[4]
    assert len(seconds) == 10 and before - 1 <= int(seconds) <= after
    assert host == os.uname().nodename
    events = _events(path)
    assert events[0].file_version == "brain.Event:2" and events[0].step == 0
    assert events[1].WhichOneof("what") == "graph_def"
    assert events[2].session_log.status == tf.SessionLog.START
    summaries = [e for e in events if e.WhichOneof("what") == "summary"]
    assert [e.step for e in summaries] == STEPS
    walls = [e.wall_time for e in events]
    assert walls == sorted(walls) and before - 1 <= walls[0] and walls[-1] <= after
    # The text plugin's metadata goes with the first value of a tag only (as TF's writer).
    notes = [v for e in summaries for v in e.summary.value if v.tag == "note"]
    assert notes[0].metadata.plugin_data.plugin_name == "text"
    assert not any(v.HasField("metadata") for v in notes[1:])


def test_tensorboard_reads_our_events(our_run):
    python = require_tensorflow("test_summary_events")
    logdir, expected, _, _ = our_run
    seen = json.loads(run_tf_script(python, "read_events.py", logdir))
    acc = seen["accumulator"]
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    ours = _events(path)
    summaries = [e for e in ours if e.WhichOneof("what") == "summary"]

    for tag in ("loss", "metrics/metrics/accuracy"):
        got = acc["scalars"][tag]
        assert [s for _, s, _ in got] == STEPS
        assert [np.float32(v) for _, _, v in got] == expected[tag], tag
        assert [w for w, _, _ in got] == [e.wall_time for e in summaries]

    histos = acc["histograms"]["weights"]
    assert [h["step"] for h in histos] == STEPS
    for h, w in zip(histos, expected["weights"]):
        values = w.astype(np.float64)
        assert (h["min"], h["max"], h["num"]) == (values.min(), values.max(), 50.0)
        assert h["sum"] == pytest.approx(values.sum(), abs=1e-9)
        assert h["sum_squares"] == pytest.approx((values * values).sum(), rel=1e-12)
        assert sum(h["bucket"]) == 50.0
        limits = np.array(h["bucket_limit"])
        # Every value sits in the bucket whose limit is the first one above it.
        counts = np.bincount(np.searchsorted(limits, values, side="right"), minlength=len(limits))
        assert counts[:len(limits)].tolist() == h["bucket"]

    images = acc["images"]["picture/image/0"]
    assert [i["step"] for i in images] == STEPS
    for image, pixels in zip(images, expected["picture"]):
        assert (image["height"], image["width"]) == (4, 5)
        np.testing.assert_array_equal(np.array(image["pixels"], np.uint8), pixels)

    assert [t["strings"] for t in acc["tensors"]["note"]] == [["hello"]] * len(STEPS)
    assert "x" in acc["graph_nodes"] and "loss" in acc["graph_nodes"]

    (listing,) = seen["iterator"].values()
    assert [e["wall_time"] for e in listing] == [e.wall_time for e in ours]
    assert [e["step"] for e in listing] == [e.step for e in ours]
    assert listing[0]["file_version"] == "brain.Event:2"
    assert [e["what"] for e in listing] == [e.WhichOneof("what") for e in ours]


def test_writer_flush_close_reopen(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path), max_queue=100, flush_secs=1000, filename_suffix=".v1")
    assert writer.get_logdir() == str(tmp_path)
    path = writer.event_file
    assert path.endswith(".v1")
    summary = tf.Summary(value=[tf.Summary.Value(tag="t", simple_value=1.5)])
    writer.add_summary(summary, 3)
    assert len(_events(path)) == 1  # queued, not written: max_queue is 100
    writer.flush()
    events = _events(path)
    assert len(events) == 2 and events[1].step == 3 and events[1].summary.value[0].simple_value == 1.5
    writer.close()
    writer.add_summary(summary, 4)  # ignored once closed, as TF
    assert len(_events(path)) == 2
    time.sleep(1.1)  # a new second: a new file name
    writer.reopen()
    assert writer.event_file != path
    writer.add_event(tf.Event(wall_time=12.5, step=7, file_version="custom"))
    writer.add_run_metadata(tf.RunMetadata(), "step_8", global_step=8)
    writer.close()
    events = _events(writer.event_file)
    assert [(e.wall_time, e.step) for e in events][1:2] == [(12.5, 7)]
    assert events[2].tagged_run_metadata.tag == "step_8" and events[2].step == 8
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a serialized Event"):
        tf.summary.FileWriter(str(tmp_path)).add_event(b"\xff\xff\xff")


def test_unclosed_writer_is_flushed_at_exit(tmp_path):
    import subprocess
    import sys
    program = ("import tensorweave as tf\n"
               f"w = tf.summary.FileWriter({str(tmp_path)!r}, flush_secs=1000)\n"
               "w.add_summary(tf.Summary(value=[tf.Summary.Value(tag='t', simple_value=3.0)]), 9)\n")
    subprocess.run([sys.executable, "-c", program], check=True, timeout=120)
    (path,) = glob.glob(os.path.join(str(tmp_path), "events.out.tfevents.*"))
    assert [e.step for e in _events(path)] == [0, 9]


def test_background_thread_flushes(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path), max_queue=100, flush_secs=0.2)
    writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="t", simple_value=2.0)]), 1)
    deadline = time.time() + 10
    while len(_events(writer.event_file)) < 2 and time.time() < deadline:
        time.sleep(0.05)
    assert len(_events(writer.event_file)) == 2
    writer.close()


def test_damaged_event_files_raise_data_loss(our_run, tmp_path):
    logdir, _, _, _ = our_run
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    data = open(path, "rb").read()
    truncated = tmp_path / "events.out.tfevents.truncated"
    truncated.write_bytes(data[:len(data) - 7])
    with pytest.raises(tf.errors.DataLossError, match="truncated"):
        _events(str(truncated))
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x55
    corrupt = tmp_path / "events.out.tfevents.corrupt"
    corrupt.write_bytes(bytes(flipped))
    with pytest.raises(tf.errors.DataLossError, match="corrupt"):
        _events(str(corrupt))
    not_events = tmp_path / "records"
    with tf.python_io.TFRecordWriter(str(not_events)) as w:
        w.write(b"\xff\xff\xff\xff")
    with pytest.raises(tf.errors.DataLossError, match="records: a record is not an Event"):
        _events(str(not_events))


def test_tensorflow_event_files_read_here(tmp_path):
    """tests/data/tf_events/run was written by TF's FileWriter (generate.py); expected.json
    holds what TF wrote."""
    expected = json.load(open(os.path.join(TF_EVENTS, "expected.json")))
    (path,) = glob.glob(os.path.join(TF_EVENTS, "run", "events.out.tfevents.*"))
    events = _events(path)
    assert events[0].file_version == "brain.Event:2"
    assert any(e.WhichOneof("what") == "graph_def" for e in events)
    graph = [e for e in events if e.WhichOneof("what") == "graph_def"][0]
    # The GraphDef TF wrote imports into our graph, and its summary ops, run here on the
    # inputs TF had, make what TF wrote.
    g = tf.Graph()
    g.import_graph_def(graph.graph_def)
    assert "x" in [op.name for op in g.get_operations()]
    merged = g.get_tensor_by_name("Merge/MergeSummary:0")
    with tf.Session(graph=g) as sess:
        for event, want in zip([e for e in events if e.WhichOneof("what") == "summary"], expected["per_step"]):
            feed = {g.get_tensor_by_name("x:0"): want["loss"],
                    g.get_tensor_by_name("weights_in:0"): np.array(want["weights"]["input"], np.float32),
                    g.get_tensor_by_name("picture_in:0"): np.array(want["picture"], np.uint8)[None],
                    g.get_tensor_by_name("note_in:0"): want["note"]}
            ours = tf.Summary()
            ours.ParseFromString(sess.run(merged, feed))
            assert len(ours.value) == len(event.summary.value)
            for mine, theirs in zip(ours.value, event.summary.value):
                if not theirs.HasField("metadata"):
                    mine.ClearField("metadata")  # TF's writer keeps a tag's metadata only once
                assert_values_equal(mine, theirs, "imported TF graph")
    summaries = [e for e in events if e.WhichOneof("what") == "summary"]
    assert [e.step for e in summaries] == expected["steps"]
    for event, want in zip(summaries, expected["per_step"]):
        values = {v.tag: v for v in event.summary.value}
        assert np.float32(values["loss"].simple_value) == np.float32(want["loss"])
        h = values["weights"].histo
        assert [h.min, h.max, h.num, h.sum, h.sum_squares] == want["weights"]["moments"]
        assert list(h.bucket_limit) == want["weights"]["bucket_limit"]
        assert list(h.bucket) == want["weights"]["bucket"]
        image = values["picture/image/0"].image
        np.testing.assert_array_equal(decode_png(image.encoded_image_string), np.array(want["picture"], np.uint8))
        assert [s.decode() for s in values["note"].tensor.string_val] == [want["note"]]
    # Our histogram op computes TF's buckets from the same inputs.
    tf.reset_default_graph()
    w = tf.placeholder(tf.float32, [None])
    op = tf.summary.histogram("weights", w)
    with tf.Session() as sess:
        for want in expected["per_step"]:
            s = tf.Summary()
            s.ParseFromString(sess.run(op, {w: np.array(want["weights"]["input"], np.float32)}))
            assert list(s.value[0].histo.bucket) == want["weights"]["bucket"]
            assert list(s.value[0].histo.bucket_limit) == want["weights"]["bucket_limit"]
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_run_metadata_with_step_stats_decodes(tmp_path):
    """A traced run's RunMetadata (step_stats) through add_run_metadata: our reader and
    TensorFlow's summary_iterator both decode the same devices and nodes."""
    g = tf.Graph()
    with g.as_default():
        y = tf.multiply(tf.constant(3.0, name="x"), 2.0, name="y")
        with tf.Session() as sess:
            metadata = tf.RunMetadata()
            sess.run(y, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=metadata)
    expected = {d.device: sorted(n.node_name for n in d.node_stats) for d in metadata.step_stats.dev_stats}
    assert {"x", "y"} <= set(expected["/job:localhost/replica:0/task:0/device:CPU:0"])
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_run_metadata(metadata, "step_1", global_step=1)
    writer.close()
    (event,) = [e for e in _events(writer.event_file) if e.HasField("tagged_run_metadata")]
    ours = tf.RunMetadata.FromString(event.tagged_run_metadata.run_metadata)
    assert ours.step_stats == metadata.step_stats and event.step == 1
    python = require_tensorflow("test_run_metadata_with_step_stats_decodes")
    theirs = json.loads(run_tf_script(python, "run_metadata_events.py", writer.event_file))
    assert theirs == {"step_1": {"step": 1, "devices": expected}}
