"""TensorFlow's side of test_summary_ops.py: runs summary_cases.py in tf.compat.v1 and prints
repr() of {case: ("ok", [serialized Summary]) or ("error", message)}.
    summary_results.py"""
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summary_cases  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class _TF1:
    """tf.compat.v1 plus the raw summary ops the cases call by name."""
    def __getattr__(self, name):
        if name == "raw_scalar_summary":
            return lambda tags, values: tf.raw_ops.ScalarSummary(tags=tags, values=values)
        if name == "raw_histogram_summary":
            return lambda tag, values: tf.raw_ops.HistogramSummary(tag=tag, values=values)
        if name == "raw_image_summary":
            return lambda tag, tensor: tf.raw_ops.ImageSummary(tag=tag, tensor=tensor)
        return getattr(tf1, name)


if __name__ == "__main__":
    print(repr(summary_cases.run_all(_TF1(), lambda g: tf1.Session(graph=g), tf.errors.OpError)))
