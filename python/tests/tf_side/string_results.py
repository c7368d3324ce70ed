"""TensorFlow's side of test_strings.py: runs string_cases.py in tf.compat.v1 and prints
repr() of {case: described result}.
    string_results.py"""
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import string_cases  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class _TF1:
    """tf.compat.v1 plus the tf.strings namespace the cases use."""
    def __getattr__(self, name):
        if name == "strings":
            return tf.strings
        if name == "where":
            return tf1.where
        return getattr(tf1, name)


if __name__ == "__main__":
    print(repr(string_cases.run_all(_TF1(), lambda g: tf1.Session(graph=g))))
