"""Reader cases shared by both sides (test_readers.py here, reader_results.py in TensorFlow):
files made by make_files() in a directory both sides read; each case returns
(fetch, counters) and run_all reads until OutOfRange, recording keys (the directory as
"DIR"), values, the ending error and the readers' counters."""
import os
import re
import struct

import numpy as np

TEXT = {"a.txt": b"header\nl1\r\nl2\n\nl4", "b.txt": b"", "c.txt": b"x\n"}
RECORDS = {"r1.tfrecord": [b"first", b"", b"third" * 50], "r2.tfrecord": [b"\x00\xff"]}


def _masked_crc(data):
    """TFRecord framing written here, independently of both libraries' writers."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    crc ^= 0xFFFFFFFF
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def make_files(directory):
    for name, data in TEXT.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
    for name, records in RECORDS.items():
        with open(os.path.join(directory, name), "wb") as f:
            for r in records:
                length = struct.pack("<Q", len(r))
                f.write(length + struct.pack("<I", _masked_crc(length)) + r + struct.pack("<I", _masked_crc(r)))
    with open(os.path.join(directory, "fixed.bin"), "wb") as f:
        f.write(b"HH" + bytes(range(100, 116)) + b"F")


def cases(directory):
    def files(tf, names):
        return tf.train.string_input_producer([os.path.join(directory, n) for n in names], num_epochs=1,
                                              shuffle=False)

    c = {}

    def text_lines(tf):
        r = tf.TextLineReader(skip_header_lines=1)
        return r.read(files(tf, ["a.txt", "b.txt", "c.txt"])), r
    c["text_lines"] = text_lines

    def text_lines_up_to(tf):
        r = tf.TextLineReader()
        return r.read_up_to(files(tf, ["a.txt", "c.txt"]), 3), r
    c["text_lines_up_to"] = text_lines_up_to

    def tfrecords(tf):
        r = tf.TFRecordReader()
        return r.read(files(tf, ["r1.tfrecord", "r2.tfrecord"])), r
    c["tfrecords"] = tfrecords

    def fixed_length(tf):
        r = tf.FixedLengthRecordReader(record_bytes=5, header_bytes=2, footer_bytes=1)
        return r.read(files(tf, ["fixed.bin"])), r
    c["fixed_length"] = fixed_length

    def fixed_length_hop(tf):
        r = tf.FixedLengthRecordReader(record_bytes=4, header_bytes=2, footer_bytes=1, hop_bytes=3)
        return r.read(files(tf, ["fixed.bin"])), r
    c["fixed_length_hop"] = fixed_length_hop

    def whole_files(tf):
        r = tf.WholeFileReader()
        return r.read(files(tf, ["a.txt", "b.txt"])), r
    c["whole_files"] = whole_files

    def missing_file(tf):
        r = tf.WholeFileReader()
        return r.read(files(tf, ["nope.txt"])), r
    c["missing_file"] = missing_file
    return c


def message(error, directory):
    text = getattr(error, "message", None) or str(error)
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.startswith("\t")]
    text = re.sub(r"^node '[^']*' \([^)]*\): ", "", lines[-1])
    text = re.sub(r" \(requested .*\)$", "", re.sub(r"'_\d+_", "'", text))
    return text.replace(directory, "DIR")


def run_all(tf, session_factory, directory):
    results = {}
    for name, case in cases(directory).items():
        g = tf.Graph()
        with g.as_default():
            (key, value), reader = case(tf)
            counters = [reader.num_records_produced(), reader.num_work_units_completed()]
            init = tf.local_variables_initializer()
            with session_factory(g) as sess:
                sess.run(init)
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(sess, coord)
                got, end = [], None
                for _ in range(50):
                    try:
                        k, v = sess.run([key, value])
                        k = np.asarray(k).tolist()
                        k = [x.replace(directory.encode(), b"DIR") for x in k] if isinstance(k, list) \
                            else k.replace(directory.encode(), b"DIR")
                        got.append([k, np.asarray(v).tolist()])
                    except (tf.errors.OutOfRangeError, tf.errors.NotFoundError) as e:
                        end = [type(e).__name__, message(e, directory)]
                        break
                coord.request_stop()
                coord.join(threads)
                results[name] = [got, end, [int(x) for x in sess.run(counters)]]
    return results
