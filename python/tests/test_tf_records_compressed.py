"""GZIP and ZLIB TFRecord files both ways with TensorFlow (TW_TF_PYTHON): files TF's
TFRecordWriter compressed are read here by tf_record_iterator and by the TFRecordReader op
(through a filename queue); files written here are read by TF's iterator and reader op."""
import json
import subprocess

import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, tf_env

RECORDS = [b"first", b"", b"x" * 70000, bytes(range(256)), "utf-8 \u00e9".encode()]
# A record's key is "<file>:<offset of the record in the uncompressed bytes>", in TF as here.
OFFSETS = [sum(16 + len(r) for r in RECORDS[:i]) for i in range(len(RECORDS))]
KINDS = {"GZIP": tf.python_io.TFRecordCompressionType.GZIP, "ZLIB": tf.python_io.TFRecordCompressionType.ZLIB}

TF_SIDE = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
mode, directory, records = sys.argv[1], sys.argv[2], [bytes.fromhex(r) for r in json.loads(sys.stdin.read())]
kinds = {"GZIP": tf.python_io.TFRecordCompressionType.GZIP, "ZLIB": tf.python_io.TFRecordCompressionType.ZLIB}
out = {}
for kind, enum in kinds.items():
    path = "%s/%s_%s.tfrecord" % (directory, mode, kind)
    options = tf.python_io.TFRecordOptions(enum)
    if mode == "tf":
        with tf.python_io.TFRecordWriter(path, options) as w:
            for r in records:
                w.write(r)
        continue
    via_iterator = [r.hex() for r in tf.python_io.tf_record_iterator(path, options)]
    with tf.Graph().as_default(), tf.Session() as sess:
        queue = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
        key, value = tf.TFRecordReader(options=options).read_up_to(queue, 100)
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        keys, values = sess.run([key, value])
        coord.request_stop(); coord.join(threads)
    out[kind] = {"iterator": via_iterator, "op": [v.hex() for v in values], "keys": [k.decode() for k in keys]}
print(json.dumps(out))
"""


def _tf(mode, directory):
    python = require_tensorflow("test_tf_records_compressed")
    done = subprocess.run([python, "-c", TF_SIDE, mode, str(directory)], input=json.dumps([r.hex() for r in RECORDS]),
                          env=tf_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]) if mode == "read" else None


def _read_with_op(path, options):
    with tf.Graph().as_default(), tf.Session() as sess:
        queue = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
        key, value = tf.TFRecordReader(options=options).read_up_to(queue, 100)
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        keys, values = sess.run([key, value])
        coord.request_stop()
        coord.join(threads)
    return [k.decode() for k in keys], list(values)


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_files_tensorflow_compressed_read_here(tmp_path, kind):
    _tf("tf", tmp_path)
    path = str(tmp_path / ("tf_%s.tfrecord" % kind))
    head = open(path, "rb").read(2)
    assert head == b"\x1f\x8b" if kind == "GZIP" else head[0] == 0x78
    options = tf.python_io.TFRecordOptions(KINDS[kind])
    assert list(tf.python_io.tf_record_iterator(path, options)) == RECORDS
    assert list(tf.python_io.tf_record_iterator(path, tf.python_io.TFRecordOptions(kind))) == RECORDS
    keys, values = _read_with_op(path, options)
    assert values == RECORDS
    assert keys == ["%s:%d" % (path, o) for o in OFFSETS]
    # Without the option the compressed bytes are damage, reported as such.
    with pytest.raises(tf.errors.DataLossError, match="record at offset 0"):
        next(tf.python_io.tf_record_iterator(path))


def test_files_written_here_read_by_tensorflow(tmp_path):
    for kind, enum in KINDS.items():
        with tf.python_io.TFRecordWriter(str(tmp_path / ("read_%s.tfrecord" % kind)),
                                         tf.python_io.TFRecordOptions(enum)) as writer:
            for r in RECORDS:
                writer.write(r)
    theirs = _tf("read", tmp_path)
    for kind in KINDS:
        path = str(tmp_path / ("read_%s.tfrecord" % kind))
        assert [bytes.fromhex(r) for r in theirs[kind]["iterator"]] == RECORDS
        assert [bytes.fromhex(r) for r in theirs[kind]["op"]] == RECORDS
        assert theirs[kind]["keys"] == ["%s:%d" % (path, o) for o in OFFSETS]


def test_truncated_compressed_file_is_data_loss(tmp_path):
    path = tmp_path / "cut.tfrecord"
    options = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
    with tf.python_io.TFRecordWriter(str(path), options) as writer:
        for r in RECORDS:
            writer.write(r)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
    records = tf.python_io.tf_record_iterator(str(path), options)
    with pytest.raises(tf.errors.DataLossError, match=r"is truncated .*decompressing: the compressed stream ends "
                                                      r"early \(the file is truncated\)"):
        list(records)
