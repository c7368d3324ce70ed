"""TensorFlow writes a run for `tw board` to read: tf.compat.v1 scalar and histogram summaries
(simple_value, histo) and TF2's tf.summary.scalar (a scalar float tensor). Prints the values
written, as JSON. Usage: write_board_events.py LOGDIR"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
written = {"v1_loss": {}, "v2_rate": {}}
graph = tf.Graph()
with graph.as_default():
    x = tf.compat.v1.placeholder(tf.float32, [])
    w = tf.compat.v1.placeholder(tf.float32, [50])
    merged = tf.compat.v1.summary.merge([tf.compat.v1.summary.scalar("v1_loss", x),
                                         tf.compat.v1.summary.histogram("v1_weights", w)])
    with tf.compat.v1.Session() as sess:
        writer = tf.compat.v1.summary.FileWriter(os.path.join(logdir, "tf_v1"), graph)
        for step in range(0, 60, 5):
            value = float(np.float32(3.0 / (step + 1)))
            writer.add_summary(sess.run(merged, {x: value, w: np.linspace(-1, 1, 50) * (step + 1)}), step)
            written["v1_loss"][step] = value
        writer.close()
tf2_writer = tf.summary.create_file_writer(os.path.join(logdir, "tf_v2"))
with tf2_writer.as_default():
    for step in range(4):
        value = float(np.float32(0.1 * (step + 1)))
        tf.summary.scalar("v2_rate", value, step=step)
        written["v2_rate"][step] = value
tf2_writer.close()
print(json.dumps(written))
