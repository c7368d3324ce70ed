"""Writes the V2 checkpoint fixture of this folder with real TensorFlow's tf.compat.v1
Saver, and the values it saved, for python/tests/test_tf_checkpoints.py.

    $(scripts/tf_env.sh) tests/data/tf_checkpoints/generate.py
model.ckpt-7.index / .data-00000-of-00001 / .meta and checkpoint: what Saver.save wrote (global step 7);
expected.npz: each variable's saved value under its name. partitioned.ckpt-1.* and
partitioned_expected.npz: the same for partitioned variables (saved as slices). MANIFEST.txt:
the TensorFlow version.
"""
import os
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rng = np.random.default_rng(11)
    values = {
        "dense/kernel": rng.normal(size=(4, 3)).astype(np.float32),
        "dense/bias": np.array([0.5, -0.25, 1e-3], np.float32),
        "scale": np.array(2.5e-300, np.float64),
        "counts": np.array([[1, -2], [2**31 - 1, -2**31]], np.int32),
        "global_step": np.array(7, np.int64),
        "mask": np.array([True, False, True]),
        "empty": np.zeros((0, 5), np.float32),
    }
    g = tf1.Graph()
    with g.as_default():
        variables = [tf1.get_variable(name, initializer=tf1.constant(v), use_resource=True,
                                      trainable=v.dtype.kind == "f")
                     for name, v in values.items()]
        saver = tf1.train.Saver(variables)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            saver.save(sess, os.path.join(HERE, "model.ckpt"), global_step=7)
    # The state file names the checkpoint by absolute path: keep it relative, as TF reads both.
    with open(os.path.join(HERE, "checkpoint"), "w") as f:
        f.write('model_checkpoint_path: "model.ckpt-7"\nall_model_checkpoint_paths: "model.ckpt-7"\n')
    np.savez(os.path.join(HERE, "expected.npz"), **values)
    write_partitioned(rng)
    with open(os.path.join(HERE, "MANIFEST.txt"), "w") as f:
        f.write(f"written by TensorFlow {tf.__version__} (tensorflow-cpu from PyPI, tf.compat.v1.train.Saver,\n"
                f"V2 format), Python {sys.version.split()[0]}, NumPy {np.__version__}, with generate.py of this folder.\n")
    print(sorted(tf.train.list_variables(os.path.join(HERE, "model.ckpt-7"))))


def write_partitioned(rng):
    """An embedding table in 3 row blocks and a matrix in 2 column blocks."""
    values = {"embedding": rng.normal(size=(10, 3)).astype(np.float32),
              "wide": rng.normal(size=(2, 150)).astype(np.float64)}
    partitioners = {"embedding": tf1.fixed_size_partitioner(3), "wide": lambda shape, dtype: [1, 2]}
    g = tf1.Graph()
    with g.as_default():
        partitioned = {name: tf1.get_variable(name, shape=v.shape, dtype=v.dtype, partitioner=partitioners[name],
                                              initializer=tf1.zeros_initializer(), use_resource=True)
                       for name, v in values.items()}
        assigns = []
        for name, variable in partitioned.items():
            parts = list(variable)
            assert len(parts) > 1, name
            for part in parts:  # each part holds the block of the value at its offset
                begin = part._save_slice_info.var_offset
                block = values[name][tuple(slice(b, b + n) for b, n in zip(begin, part.shape.as_list()))]
                assigns.append(part.assign(block))
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(assigns)
            saver.save(sess, os.path.join(HERE, "partitioned.ckpt"), global_step=1, write_meta_graph=False,
                       latest_filename="partitioned_checkpoint")
    np.savez(os.path.join(HERE, "partitioned_expected.npz"), **values)


if __name__ == "__main__":
    main()
