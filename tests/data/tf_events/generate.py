"""Writes the event-file fixture of this folder with real TensorFlow's FileWriter
(tf.compat.v1 summaries: scalar, histogram, image, text, and the graph), and what TensorFlow
wrote in it as expected.json, for python/tests/test_summary_events.py.

Run with the suite's pinned TensorFlow (scripts/tf_env.sh prints its python):
    $(scripts/tf_env.sh) tests/data/tf_events/generate.py
run/ then holds one events.out.tfevents.* file; MANIFEST.txt records the TensorFlow version.
"""
import glob
import json
import os
import platform
import shutil

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = [0, 3, 7]


def main():
    run = os.path.join(HERE, "run")
    shutil.rmtree(run, ignore_errors=True)
    graph = tf1.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [], name="x")
        weights = tf1.placeholder(tf.float32, [None], name="weights_in")
        picture = tf1.placeholder(tf.uint8, [1, 3, 4, 3], name="picture_in")
        note = tf1.placeholder(tf.string, [], name="note_in")
        tf1.summary.scalar("loss", x)
        tf1.summary.histogram("weights", weights)
        tf1.summary.image("picture", picture)
        tf1.summary.text("note", note)
        merged = tf1.summary.merge_all()
        expected = {"steps": STEPS, "per_step": []}
        writer = tf1.summary.FileWriter(run, graph=graph)
        with tf1.Session(graph=graph) as sess:
            for step in STEPS:
                w = (np.arange(-20, 21, dtype=np.float32) * (step + 1) / 7.0).astype(np.float32)
                pixels = (np.arange(36).reshape(1, 3, 4, 3) * (step + 5) % 256).astype(np.uint8)
                text = "step %d" % step
                serialized = sess.run(merged, {x: 1.0 / (step + 1), weights: w, picture: pixels, note: text})
                writer.add_summary(serialized, step)
                summary = tf1.Summary.FromString(serialized)
                h = [v for v in summary.value if v.tag == "weights"][0].histo
                expected["per_step"].append({
                    "loss": float(np.float32(1.0 / (step + 1))),
                    "weights": {"input": w.tolist(), "moments": [h.min, h.max, h.num, h.sum, h.sum_squares],
                                "bucket_limit": list(h.bucket_limit), "bucket": list(h.bucket)},
                    "picture": pixels[0].tolist(), "note": text})
        writer.close()
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    with open(os.path.join(HERE, "MANIFEST.txt"), "w") as f:
        f.write("written by TensorFlow %s (tensorflow-cpu from PyPI, tf.compat.v1 FileWriter),\n"
                "Python %s, NumPy %s, with generate.py of this folder.\n"
                % (tf.__version__, platform.python_version(), np.__version__))
        for path in sorted(glob.glob(os.path.join(run, "*"))):
            f.write("run/%s\n" % os.path.basename(path))


if __name__ == "__main__":
    main()
