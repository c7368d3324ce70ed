"""Command-line flags of every type, tf.logging, and tf.gfile file handling: writes a few
text shards, lists, globs, copies, renames and removes them, then sums the numbers they
hold in a graph."""
import os

import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("workdir", "/tmp/tf1_flags_gfile", "Directory the shards are written under.")
flags.DEFINE_integer("num_shards", 3, "How many shards to write.")
flags.DEFINE_float("scale", 0.5, "Multiplies every value before summing.")
flags.DEFINE_boolean("keep", False, "Keep the directory at the end.")
flags.DEFINE_list("words", ["alpha", "beta"], "Words written before each value.")
FLAGS = flags.FLAGS


def write_shards(data_dir):
    for i in range(FLAGS.num_shards):
        with tf.gfile.GFile(os.path.join(data_dir, "shard-%d.txt" % i), "w") as f:
            f.write("%s %d\n" % (" ".join(FLAGS.words), 10 * (i + 1)))


def read_values(paths):
    values = []
    for path in paths:
        with tf.gfile.GFile(path, "r") as f:
            for line in f:
                values.append(float(line.split()[-1]))
    return values


def main(_):
    tf.logging.set_verbosity(tf.logging.INFO)
    data_dir = os.path.join(FLAGS.workdir, "data")
    if tf.gfile.Exists(FLAGS.workdir):
        tf.logging.warning("removing the old %s", FLAGS.workdir)
        tf.gfile.DeleteRecursively(FLAGS.workdir)
    tf.gfile.MakeDirs(data_dir)
    tf.logging.info("writing %d shards to %s", FLAGS.num_shards, data_dir)
    write_shards(data_dir)
    print("listing:", sorted(tf.gfile.ListDirectory(data_dir)))
    print("glob:", [os.path.basename(p) for p in sorted(tf.gfile.Glob(os.path.join(data_dir, "shard-*.txt")))])

    tf.gfile.Copy(os.path.join(data_dir, "shard-0.txt"), os.path.join(FLAGS.workdir, "backup.txt"))
    tf.gfile.Rename(os.path.join(data_dir, "shard-1.txt"), os.path.join(data_dir, "renamed.txt"))
    tf.gfile.Remove(os.path.join(data_dir, "shard-2.txt"))
    print("after:", sorted(tf.gfile.ListDirectory(data_dir)), sorted(tf.gfile.ListDirectory(FLAGS.workdir)))
    print("is dir:", tf.gfile.IsDirectory(data_dir), tf.gfile.IsDirectory(os.path.join(FLAGS.workdir, "backup.txt")))
    with tf.gfile.GFile(os.path.join(FLAGS.workdir, "backup.txt")) as f:
        print("backup:", f.read().strip())

    values = read_values(sorted(tf.gfile.Glob(os.path.join(data_dir, "*.txt"))))
    x = tf.placeholder(tf.float32, [None], name="values")
    total = tf.reduce_sum(x * FLAGS.scale)
    with tf.Session() as sess:
        print("total: %.4f" % sess.run(total, feed_dict={x: values}))
    print("flags:", FLAGS.num_shards, FLAGS.scale, FLAGS.keep, FLAGS.words)
    if not FLAGS.keep:
        tf.gfile.DeleteRecursively(FLAGS.workdir)
    print("exists at the end:", tf.gfile.Exists(FLAGS.workdir))


if __name__ == "__main__":
    tf.app.run()
