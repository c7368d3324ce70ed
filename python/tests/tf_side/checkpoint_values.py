"""TensorFlow's side of test_tf_checkpoints.py: reads the checkpoint at PREFIX with
tf.train.load_checkpoint and restores it into a tf.compat.v1 graph with tf.train.Saver,
writing both views to OUT (an .npz: "read:<name>" and "restored:<name>").
    checkpoint_values.py PREFIX OUT"""
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def main(prefix, out):
    reader = tf.train.load_checkpoint(prefix)
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    arrays = {"read:" + name: reader.get_tensor(name) for name in shapes}
    g = tf1.Graph()
    with g.as_default():
        variables = {name: tf1.get_variable(name, shape=shapes[name], dtype=dtypes[name], use_resource=True,
                                            initializer=tf1.zeros_initializer())
                     for name in shapes}
        saver = tf1.train.Saver(variables)
        with tf1.Session() as sess:
            saver.restore(sess, prefix)
            for name, v in variables.items():
                arrays["restored:" + name] = sess.run(v)
    np.savez(out, **arrays)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
