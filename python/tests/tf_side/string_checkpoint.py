"""TensorFlow's side of the string checkpoint tests in test_tf_checkpoints.py.
    string_checkpoint.py write PREFIX   saves string_cases.checkpoint_values() with tf.compat.v1's Saver
    string_checkpoint.py read PREFIX    prints repr() of {name: (read with load_checkpoint, restored by Saver)}"""
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import string_cases  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def variables(values):
    return {name: tf1.get_variable(name, shape=v.shape, dtype=tf.string if v.dtype == object else v.dtype,
                                   use_resource=True, initializer=tf1.zeros_initializer())
            for name, v in values.items()}


def write(prefix):
    values = string_cases.checkpoint_values()
    with tf1.Graph().as_default():
        vs = variables(values)
        with tf1.Session() as sess:
            for name, v in vs.items():
                sess.run(v.assign(values[name]))
            tf1.train.Saver(vs).save(sess, prefix, write_meta_graph=False, write_state=False)


def read(prefix):
    reader = tf.train.load_checkpoint(prefix)
    values = string_cases.checkpoint_values()
    out = {}
    with tf1.Graph().as_default():
        vs = variables(values)
        with tf1.Session() as sess:
            tf1.train.Saver(vs).restore(sess, prefix)
            for name, v in vs.items():
                out[name] = (string_cases.canonical(reader.get_tensor(name)), string_cases.canonical(sess.run(v)))
    print(repr(out))


if __name__ == "__main__":
    {"write": write, "read": read}[sys.argv[1]](sys.argv[2])
