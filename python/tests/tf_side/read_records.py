"""TensorFlow's side of test_tf_records.py: reads a TFRecord file with tf.data.TFRecordDataset
and prints each record in hex, one per line.
    read_records.py PATH"""
import sys

import tensorflow as tf

for record in tf.data.TFRecordDataset(sys.argv[1]).as_numpy_iterator():
    print(record.hex())
