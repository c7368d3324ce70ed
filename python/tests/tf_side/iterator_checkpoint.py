"""tf.data iterators saved and restored with tf.train.Saver, the same way by TensorFlow
(tf.compat.v1, graph mode) and by tensorweave (test_iterator_checkpoint.py imports this
file for PROGRAMS, write_files() and resume()).

Each program: read `k` elements, save (the iterator's saveable in SAVEABLE_OBJECTS, a
default Saver), read the rest; then in a new graph and session restore and read to the
end. Run by TensorFlow's python: `iterator_checkpoint.py DIR OUT.json`, with DIR holding
the files write_files() wrote."""
import gzip
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from data_pipelines import _flatten, _leaf  # noqa: E402  (one JSON form of elements for both tests)

# name -> (iterator kind, k, source). The source sees tf, np, os and DIR and sets `ds`.
PARSE = ("def parse(r):\n"
         "    f = tf.io.parse_single_example(r, {'x': tf.io.FixedLenFeature([2], tf.int64),\n"
         "                                       'name': tf.io.FixedLenFeature([], tf.string)})\n"
         "    return f['x'] * 10, f['name']\n"
         "files = [os.path.join(DIR, 'part-%d.tfrecord' % i) for i in range(3)]\n")
PROGRAMS = {
    "range": ("one_shot", 4, "ds = tf.data.Dataset.range(10)"),
    "slices": ("initializable", 2, "ds = tf.data.Dataset.from_tensor_slices((np.arange(6).reshape(3, 2), np.array([b'a', b'b', b'c'])))"),
    "from_tensors": ("one_shot", 0, "ds = tf.data.Dataset.from_tensors(np.arange(3)).repeat(3)"),
    "zip": ("one_shot", 3, "ds = tf.data.Dataset.zip((tf.data.Dataset.range(7), tf.data.Dataset.range(100, 105)))"),
    "take_skip": ("one_shot", 2, "ds = tf.data.Dataset.range(30).skip(4).take(7)"),
    "shard": ("one_shot", 2, "ds = tf.data.Dataset.range(23).shard(4, 3)"),
    "concatenate_first": ("one_shot", 2, "ds = tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(10, 14))"),
    "concatenate_second": ("one_shot", 5, "ds = tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(10, 14))"),
    "interleave": ("one_shot", 5, "ds = tf.data.Dataset.range(1, 6).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=2)"),
    "flat_map": ("one_shot", 4, "ds = tf.data.Dataset.range(5).flat_map(lambda x: tf.data.Dataset.range(x))"),
    "padded_batch": ("one_shot", 1, "ds = tf.data.Dataset.range(1, 8).map(lambda x: tf.fill(tf.reshape(x, [1]), x)).padded_batch(2, padded_shapes=[None])"),
    "cache_filling": ("one_shot", 3, "ds = tf.data.Dataset.range(5).map(lambda x: x * 3).cache().repeat(2)"),
    "cache_replaying": ("one_shot", 7, "ds = tf.data.Dataset.range(5).map(lambda x: x * 3).cache().repeat(2)"),
    "filter_map_batch": ("one_shot", 2, "ds = tf.data.Dataset.range(40).filter(lambda x: x % 3 > 0).map(lambda x: (x, tf.cast(x, tf.float32) / 2)).batch(4)"),
    "prefetch_parallel_map": ("one_shot", 6, "ds = tf.data.Dataset.range(30).map(lambda x: x * x, num_parallel_calls=3).prefetch(5)"),
    # A fresh prefetch must pull nothing before the restore (its input is short).
    "prefetch_short": ("one_shot", 1, "ds = tf.data.Dataset.range(3).prefetch(10)"),
    "prefetch_in_repeat": ("one_shot", 3, "ds = tf.data.Dataset.range(2).prefetch(5).repeat(3)"),
    "text_lines": ("one_shot", 3, "ds = tf.data.TextLineDataset([os.path.join(DIR, 'a.txt'), os.path.join(DIR, 'b.txt')])"),
    "fixed_length": ("one_shot", 2, "ds = tf.data.FixedLengthRecordDataset(os.path.join(DIR, 'fixed.bin'), record_bytes=4, header_bytes=2, footer_bytes=1)"),
    "tfrecord_gzip": ("one_shot", 3, "ds = tf.data.TFRecordDataset([os.path.join(DIR, 'z.tfrecord.gz')], compression_type='GZIP')"),
    "tfrecord_pipeline": ("initializable", 3, PARSE + "ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=2).repeat(2).batch(4).prefetch(2)"),
    "at_end": ("one_shot", 5, "ds = tf.data.Dataset.range(5)"),
    # Saved after the OutOfRange (6 asked, 5 given).
    "past_end": ("one_shot", 6, "ds = tf.data.Dataset.range(5).map(lambda x: x + 1, num_parallel_calls=2).prefetch(2)"),
}


def write_files(tf, directory):
    """The input files, written with `tf`'s writers (both libraries write the same bytes)."""
    for i in range(3):
        with tf.io.TFRecordWriter(os.path.join(directory, "part-%d.tfrecord" % i)) as w:
            for j in range(5):
                ex = tf.train.Example()
                ex.features.feature["x"].int64_list.value.extend([i, j])
                ex.features.feature["name"].bytes_list.value.append(b"file%d-rec%d" % (i, j))
                w.write(ex.SerializeToString())
    plain = os.path.join(directory, "z.tfrecord")
    with tf.io.TFRecordWriter(plain) as w:
        for i in range(7):
            w.write(b"zipped %d" % (i * i))
    with open(plain, "rb") as f, gzip.open(os.path.join(directory, "z.tfrecord.gz"), "wb") as z:
        z.write(f.read())
    with open(os.path.join(directory, "a.txt"), "w") as f:
        f.write("first line\nsecond\n\nlast of a")
    with open(os.path.join(directory, "b.txt"), "w") as f:
        f.write("b one\nb two\n")
    with open(os.path.join(directory, "fixed.bin"), "wb") as f:
        f.write(b"HH" + bytes(range(16)) + b"F")


def build(tf, source, directory, kind):
    """In the default graph: the iterator (its saveable added to SAVEABLE_OBJECTS), its
    initializer (or None), its next element and a default Saver."""
    scope = {"tf": tf, "np": np, "DIR": directory, "os": os}
    exec(source, scope)  # noqa: S102 - the programs above
    ds = scope["ds"]
    if kind == "one_shot":
        it = tf.data.make_one_shot_iterator(ds)
        init = None
    else:
        it = tf.data.make_initializable_iterator(ds)
        init = it.initializer
    tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, tf.data.experimental.make_saveable_from_iterator(it))
    return it, init, it.get_next(), tf.train.Saver()


def read(tf, sess, nxt, n=None):
    """Up to n elements (all when None) and how it ended ("OutOfRange" or None)."""
    out = []
    while n is None or len(out) < n:
        try:
            out.append([_leaf(v) for v in _flatten(sess.run(nxt))])
        except tf.errors.OutOfRangeError:
            return out, "OutOfRange"
        if len(out) > 500:
            return out, "no end"
    return out, None


def save_then_read(tf, source, directory, kind, k, prefix):
    """Reads k elements, saves to `prefix`, reads the rest: (checkpoint path, before, after)."""
    g = tf.Graph()
    with g.as_default():
        _, init, nxt, saver = build(tf, source, directory, kind)
        with tf.Session(graph=g) as sess:
            if init is not None:
                sess.run(init)
            before, _ = read(tf, sess, nxt, k)
            path = saver.save(sess, prefix)
            after, end = read(tf, sess, nxt)
    return path, before, after, end


def restore_then_read(tf, source, directory, kind, path):
    """In a new graph and session: restores `path` and reads to the end."""
    g = tf.Graph()
    with g.as_default():
        _, init, nxt, saver = build(tf, source, directory, kind)
        with tf.Session(graph=g) as sess:
            if init is not None:
                sess.run(init)
            saver.restore(sess, path)
            return read(tf, sess, nxt)


def resume(tf, name, directory, ckpt_dir):
    kind, k, source = PROGRAMS[name]
    path, before, after, end = save_then_read(tf, source, directory, kind, k, os.path.join(ckpt_dir, name))
    resumed, resumed_end = restore_then_read(tf, source, directory, kind, path)
    return {"before": before, "after": after, "end": end, "resumed": resumed, "resumed_end": resumed_end,
            "keys": sorted(n for n, _ in tf.train.list_variables(path)) if hasattr(tf.train, "list_variables") else None}


if __name__ == "__main__":
    import tensorflow as tf_module
    tf_module.compat.v1.disable_eager_execution()
    directory, out_path = sys.argv[1], sys.argv[2]
    ckpt_dir = os.path.join(directory, "tf_ckpt")
    os.makedirs(ckpt_dir, exist_ok=True)
    results = {name: resume(tf_module.compat.v1, name, directory, ckpt_dir) for name in PROGRAMS}
    with open(out_path, "w") as f:
        json.dump(results, f)
