"""TensorFlow's side of test_string_ops.py: runs string_op_cases.py in tf.compat.v1 and
prints repr() of {case: described result}.
    string_op_results.py"""
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import string_op_cases  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class _TF1:
    """tf.compat.v1 with TF 1.x's tf.strings namespace (split returning a SparseTensor)."""
    class strings:  # noqa: N801
        pass

    def __getattr__(self, name):
        return getattr(tf1, name)


_TF1.strings = tf1.strings


if __name__ == "__main__":
    print(repr(string_op_cases.run_all(_TF1(), lambda g: tf1.Session(graph=g))))
