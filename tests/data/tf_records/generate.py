"""Writes the TFRecord fixture of this folder with real TensorFlow's tf.io.TFRecordWriter,
for python/tests/test_tf_records.py.

    $(scripts/tf_env.sh) tests/data/tf_records/generate.py
records.tfrecord: the records; expected.hex: each record's bytes in hex, one per line (an
empty line for the empty record). MANIFEST.txt: the TensorFlow version.
"""
import os
import sys

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    example = tf.train.Example(features=tf.train.Features(feature={
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[7])),
        "pixels": tf.train.Feature(float_list=tf.train.FloatList(value=[0.0, 0.5, 1.0])),
    }))
    records = [b"hello", b"", bytes(range(256)), example.SerializeToString(), b"\xff" * 5000]
    with tf.io.TFRecordWriter(os.path.join(HERE, "records.tfrecord")) as w:
        for r in records:
            w.write(r)
    with open(os.path.join(HERE, "expected.hex"), "w") as f:
        f.writelines(r.hex() + "\n" for r in records)
    with open(os.path.join(HERE, "MANIFEST.txt"), "w") as f:
        f.write(f"written by TensorFlow {tf.__version__} (tensorflow-cpu from PyPI, tf.io.TFRecordWriter),\n"
                f"Python {sys.version.split()[0]}, NumPy {np.__version__}, with generate.py of this folder.\n")


if __name__ == "__main__":
    main()
