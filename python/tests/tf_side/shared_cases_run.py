"""The TensorFlow side of a shared-cases module (tf_side/*_cases.py run as a script with
arguments in.npz out.npz): build(tf, arrays) on TensorFlow's compat.v1, its values saved to
out.npz. Returns compat.v1 for the script's further checks (shapes, errors)."""
import sys

import numpy as np


def run_build(build, initialize_variables=False):
    import tensorflow as tf2
    tf = tf2.compat.v1
    tf.disable_eager_execution()
    arrays = dict(np.load(sys.argv[1]))
    with tf.Graph().as_default():
        out = build(tf, arrays)
        with tf.Session() as sess:
            if initialize_variables:
                sess.run(tf.global_variables_initializer())
            np.savez(sys.argv[2], **sess.run(out))
    return tf
