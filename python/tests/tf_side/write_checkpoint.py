"""TensorFlow's side of test_tf_checkpoints.py's small-dtype test: saves the arrays in the
.npz VALUES as resource variables of the same names and dtypes with tf.train.Saver.
    write_checkpoint.py VALUES PREFIX"""
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def main(values_path, prefix):
    values = dict(np.load(values_path))
    g = tf1.Graph()
    with g.as_default():
        variables = {name: tf1.get_variable(name, initializer=tf1.constant(v), use_resource=True)
                     for name, v in values.items()}
        saver = tf1.train.Saver(variables)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            saver.save(sess, prefix)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
