"""TF 1.x readers (issue 20): TFRecordReader, TextLineReader, FixedLengthRecordReader and
WholeFileReader fed by string_input_producer, read / read_up_to and their counters; the cases
of tf_side/reader_cases.py (files framed by an independent writer there) give the same keys,
values, counters and ending errors as TensorFlow. A corrupted record is DataLoss naming the file."""
import ast
import sys

import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script

sys.path.insert(0, TF_SIDE_DIR)
import reader_cases  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("readers"))
    reader_cases.make_files(directory)
    return directory


@pytest.fixture(scope="module")
def theirs(files):
    python = require_tensorflow("test_readers")
    return ast.literal_eval(run_tf_script(python, "reader_results.py", files))


@pytest.fixture(scope="module")
def ours(files):
    return reader_cases.run_all(tf, lambda g: tf.Session(graph=g), files)


@pytest.mark.parametrize("case", sorted(reader_cases.cases("/")))
def test_same_as_tensorflow(case, ours, theirs):
    assert ours[case] == theirs[case]


def test_records_written_by_our_writer_read_back(tmp_path):
    path = str(tmp_path / "w.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(5):
            w.write(b"rec%d" % i)
    names = tf.train.string_input_producer([path], num_epochs=2, shuffle=False)
    keys, values = tf.TFRecordReader().read_up_to(names, 4)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        threads = tf.train.start_queue_runners(sess)
        got = [sess.run(values).tolist() for _ in range(4)]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(values)
        for t in threads:
            t.join(10)
    assert got == [[b"rec0", b"rec1", b"rec2", b"rec3"], [b"rec4"]] * 2


def test_a_corrupted_record_is_data_loss_naming_the_file(tmp_path):
    path = tmp_path / "bad.tfrecord"
    with tf.python_io.TFRecordWriter(str(path)) as w:
        w.write(b"payload")
    data = bytearray(path.read_bytes())
    data[14] ^= 0xFF  # inside the payload: its CRC no longer matches
    path.write_bytes(bytes(data))
    q = tf.FIFOQueue(2, tf.string, shapes=[[]])
    key, value = tf.TFRecordReader().read(q)
    with tf.Session() as sess:
        sess.run(q.enqueue([str(path)]))
        with pytest.raises(tf.errors.DataLossError, match="bad.tfrecord"):
            sess.run(value)


def test_reset_and_bad_arguments():
    q = tf.FIFOQueue(2, tf.string, shapes=[[]])
    reader = tf.FixedLengthRecordReader(record_bytes=0)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="record_bytes > 0"):
            sess.run(reader.read(q))
    with tf.Graph().as_default():
        r = tf.TextLineReader()
        with tf.Session() as sess:
            sess.run(r.reset())
            assert sess.run(r.num_records_produced()) == 0


def test_server_file_access_root_confines_readers(tmp_path):
    from conftest import free_port
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "in.txt").write_bytes(b"inside\n")
    (outside / "out.txt").write_bytes(b"secret\n")
    cluster = tf.train.ClusterSpec({"local": ["localhost:%d" % free_port()]})
    server = tf.train.Server(cluster, job_name="local", task_index=0, file_access_root=str(root))
    with tf.Graph().as_default():
        q = tf.FIFOQueue(4, tf.string, shapes=[[]])
        fill = q.enqueue_many([[str(root / "in.txt"), str(root / ".." / "outside" / "out.txt")]])
        key, value = tf.WholeFileReader().read(q)
        with tf.Session(server.target) as sess:
            sess.run(fill)
            assert sess.run(value) == b"inside\n"
            with pytest.raises(tf.errors.PermissionDeniedError, match="outside this server's file access root"):
                sess.run(value)
