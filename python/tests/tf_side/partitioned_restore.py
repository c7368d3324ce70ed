"""TensorFlow's side of test_partitioned_saver.py: restores the checkpoint at PREFIX into a
tf.compat.v1 graph where each listed variable is partitioned along axis 0 into SHARDS
shards (fixed_size_partitioner), and writes to OUT (an .npz) each variable's restored
value ("<name>", the shards concatenated) and its shards' row counts ("rows:<name>").
    partitioned_restore.py PREFIX OUT NAME:SHARDS [NAME:SHARDS ...]
With --meta, it instead imports PREFIX.meta (tf.train.import_meta_graph), restores with
the saver it carries and writes every global variable's value under its name."""
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def restore_partitioned(prefix, out, specs):
    reader = tf.train.load_checkpoint(prefix)
    shapes, dtypes = reader.get_variable_to_shape_map(), reader.get_variable_to_dtype_map()
    arrays = {}
    with tf1.Graph().as_default():
        variables = {}
        for spec in specs:
            name, shards = spec.rsplit(":", 1)
            variables[name] = tf1.get_variable(name, shape=shapes[name], dtype=dtypes[name], use_resource=True,
                                               partitioner=tf1.fixed_size_partitioner(int(shards)),
                                               initializer=tf1.zeros_initializer())
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            saver.restore(sess, prefix)
            for name, v in variables.items():
                parts = sess.run(list(v))
                arrays[name] = np.concatenate(parts, axis=0)
                arrays["rows:" + name] = np.array([p.shape[0] for p in parts])
    np.savez(out, **arrays)


def restore_meta(prefix, out):
    with tf1.Graph().as_default():
        saver = tf1.train.import_meta_graph(prefix + ".meta")
        with tf1.Session() as sess:
            saver.restore(sess, prefix)
            np.savez(out, **{v.op.name: sess.run(v) for v in tf1.global_variables()})


if __name__ == "__main__":
    if sys.argv[1] == "--meta":
        restore_meta(sys.argv[2], sys.argv[3])
    else:
        restore_partitioned(sys.argv[1], sys.argv[2], sys.argv[3:])
