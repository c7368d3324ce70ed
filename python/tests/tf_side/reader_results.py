"""TensorFlow's side of test_readers.py: runs reader_cases.py in tf.compat.v1 on the files
in DIR and prints repr() of {case: result}.
    reader_results.py DIR"""
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reader_cases  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

if __name__ == "__main__":
    print(repr(reader_cases.run_all(tf1, lambda g: tf1.Session(graph=g), sys.argv[1])))
