"""TFRecord files both ways: records real TensorFlow wrote (tests/data/tf_records/) read
with tf.python_io.tf_record_iterator, and records we write read by tf.data.TFRecordDataset."""
import os

import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

SOURCE_DIR = os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURE_DIR = os.path.join(SOURCE_DIR, "tests", "data", "tf_records")
RECORDS = [b"", b"one", bytes(range(256)) * 3, "text is written as UTF-8: \u00e9", b"\x00" * 70000]


def test_reads_what_tensorflow_wrote():
    with open(os.path.join(FIXTURE_DIR, "expected.hex")) as f:
        expected = [bytes.fromhex(line.strip()) for line in f]
    got = list(tf.python_io.tf_record_iterator(os.path.join(FIXTURE_DIR, "records.tfrecord")))
    assert len(expected) == 5
    assert got == expected


def test_tensorflow_reads_what_we_write(tmp_path):
    python = require_tensorflow("test_tensorflow_reads_what_we_write")
    path = tmp_path / "ours.tfrecord"
    with tf.python_io.TFRecordWriter(str(path)) as writer:
        for r in RECORDS:
            writer.write(r)
    out = run_tf_script(python, "read_records.py", str(path))
    as_bytes = [r.encode("utf-8") if isinstance(r, str) else r for r in RECORDS]
    assert [bytes.fromhex(line) for line in out.splitlines()] == as_bytes
    assert list(tf.python_io.tf_record_iterator(str(path))) == as_bytes


def test_damage_and_bad_options_are_clear_errors(tmp_path):
    path = tmp_path / "r.tfrecord"
    with tf.python_io.TFRecordWriter(str(path)) as writer:
        writer.write(b"first")
        writer.write(b"second")
    data = path.read_bytes()
    path.write_bytes(data[:-3])
    records = tf.python_io.tf_record_iterator(str(path))
    assert next(records) == b"first"
    with pytest.raises(tf.errors.DataLossError, match=r"record at offset 21 is truncated"):
        next(records)
    with pytest.raises(tf.errors.InvalidArgumentError, match="unknown TFRecord compression type 'LZ4'"):
        tf.python_io.TFRecordWriter(str(tmp_path / "z"), tf.python_io.TFRecordOptions("LZ4"))
    with pytest.raises(tf.errors.NotFoundError, match="no such file"):
        next(tf.python_io.tf_record_iterator(str(tmp_path / "missing")))
