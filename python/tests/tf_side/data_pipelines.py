"""tf.data pipelines run the same way by TensorFlow (tf.compat.v1, graph mode) and by
tensorweave (test_data_pipelines.py imports this file for PROGRAMS and drain()).

Run by TensorFlow's python: `data_pipelines.py DIR OUT.json` writes the input files into
DIR (TFRecord plain and GZIP, text lines, fixed-length records), then drains every
program and writes each element sequence to OUT.json."""
import json
import os
import sys

import numpy as np

# name -> (iterator kind, source). The source sees tf, np and DIR and sets `ds`.
PROGRAMS = {
    "slices_array": ("one_shot", "ds = tf.data.Dataset.from_tensor_slices(np.arange(12, dtype=np.float32).reshape(4, 3))"),
    "slices_tuple": ("one_shot", "ds = tf.data.Dataset.from_tensor_slices((np.arange(5), np.array([b'a', b'b', b'c', b'd', b'e'])))"),
    "slices_dict": ("one_shot", "ds = tf.data.Dataset.from_tensor_slices({'x': np.arange(6, dtype=np.int32), 'y': np.ones((6, 2), np.float64)})"),
    "from_tensors": ("one_shot", "ds = tf.data.Dataset.from_tensors((np.arange(3), 7.5))"),
    "range": ("one_shot", "ds = tf.data.Dataset.range(10)"),
    "range_step": ("one_shot", "ds = tf.data.Dataset.range(2, 20, 3)"),
    "range_negative": ("one_shot", "ds = tf.data.Dataset.range(10, 0, -4)"),
    "zip": ("one_shot", "ds = tf.data.Dataset.zip((tf.data.Dataset.range(5), tf.data.Dataset.range(100, 103)))"),
    "concatenate": ("one_shot", "ds = tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(10, 12))"),
    "map": ("one_shot", "ds = tf.data.Dataset.range(6).map(lambda x: x * 2 + 1)"),
    "map_tuple_to_dict": ("one_shot", "ds = tf.data.Dataset.from_tensor_slices((np.arange(4.0), np.arange(4))).map(lambda a, b: {'sum': a + tf.cast(b, tf.float64), 'b': b})"),
    "map_captured": ("initializable", "c = tf.constant(10, tf.int64)\nds = tf.data.Dataset.range(5).map(lambda x: x + c)"),
    "parallel_map": ("one_shot", "ds = tf.data.Dataset.range(40).map(lambda x: x * x, num_parallel_calls=4)"),
    "filter": ("one_shot", "ds = tf.data.Dataset.range(20).filter(lambda x: tf.equal(x % 3, 0))"),
    "batch": ("one_shot", "ds = tf.data.Dataset.range(10).batch(4)"),
    "batch_drop_remainder": ("one_shot", "ds = tf.data.Dataset.range(10).map(lambda x: (x, tf.cast(x, tf.float32) * 0.5)).batch(4, drop_remainder=True)"),
    "padded_batch": ("one_shot", "ds = tf.data.Dataset.range(1, 6).map(lambda x: tf.fill(tf.reshape(x, [1]), x)).padded_batch(2, padded_shapes=[None])"),
    "padded_batch_fixed": ("one_shot", "ds = tf.data.Dataset.range(1, 4).map(lambda x: tf.fill(tf.reshape(x, [1]), tf.cast(x, tf.int32))).padded_batch(2, padded_shapes=[5], padding_values=-1)"),
    "repeat": ("one_shot", "ds = tf.data.Dataset.range(3).repeat(3)"),
    "prefetch": ("one_shot", "ds = tf.data.Dataset.range(25).map(lambda x: x + 1).prefetch(4)"),
    "take_skip": ("one_shot", "ds = tf.data.Dataset.range(20).skip(3).take(5)"),
    "cache_repeat": ("one_shot", "ds = tf.data.Dataset.range(4).map(lambda x: x * 10).cache().repeat(2)"),
    "shard": ("one_shot", "ds = tf.data.Dataset.range(11).shard(3, 1)"),
    "text_lines": ("one_shot", "ds = tf.data.TextLineDataset([os.path.join(DIR, 'a.txt'), os.path.join(DIR, 'b.txt')])"),
    "tfrecord": ("one_shot", "ds = tf.data.TFRecordDataset(os.path.join(DIR, 'plain.tfrecord'))"),
    "tfrecord_gzip": ("one_shot", "ds = tf.data.TFRecordDataset([os.path.join(DIR, 'z.tfrecord.gz')], compression_type='GZIP')"),
    "fixed_length": ("one_shot", "ds = tf.data.FixedLengthRecordDataset(os.path.join(DIR, 'fixed.bin'), record_bytes=4, header_bytes=2, footer_bytes=1)"),
    "interleave": ("one_shot", "ds = tf.data.Dataset.range(1, 5).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=2)"),
    "flat_map": ("one_shot", "ds = tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x))"),
    "initializable_dict_batch": ("initializable", "ds = tf.data.Dataset.from_tensor_slices({'a': np.arange(7), 'b': np.arange(7) * 1.5}).map(lambda d: {'a': d['a'] + 1, 'b': d['b']}).batch(3)"),
    "from_structure": ("structure", "ds = tf.data.Dataset.range(5).map(lambda x: (x, tf.cast(x, tf.float32)))"),
}


def write_files(tf, directory):
    with open(os.path.join(directory, "a.txt"), "w") as f:
        f.write("first line\nsecond\n\nlast of a")
    with open(os.path.join(directory, "b.txt"), "w") as f:
        f.write("b one\r\nb two\n")
    with tf.io.TFRecordWriter(os.path.join(directory, "plain.tfrecord")) as w:
        for i in range(5):
            w.write(b"record %d" % i)
    options = tf.io.TFRecordOptions(compression_type="GZIP")
    with tf.io.TFRecordWriter(os.path.join(directory, "z.tfrecord.gz"), options) as w:
        for i in range(7):
            w.write(b"zipped %d" % (i * i))
    with open(os.path.join(directory, "fixed.bin"), "wb") as f:
        f.write(b"HH" + bytes(range(12)) + b"F")


def _leaf(value):
    a = np.asarray(value)
    if a.dtype.kind in "SO":
        return {"dtype": "string", "shape": list(a.shape), "value": [v.decode("latin1") if isinstance(v, bytes) else v
                                                                      for v in a.reshape(-1).tolist()]}
    return {"dtype": a.dtype.name, "shape": list(a.shape), "value": a.reshape(-1).tolist()}


def _flatten(x):
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in _flatten(x[k])]
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in _flatten(item)]
    return [x]


def drain(tf, source, directory, kind):
    """Runs one program: [element, ...] (each the list of its flattened leaves), the end
    ("OutOfRange" or the error's text) and the static output types."""
    g = tf.Graph()
    with g.as_default():
        scope = {"tf": tf, "np": np, "DIR": directory, "os": os}
        exec(source, scope)  # noqa: S102 - the programs above
        ds = scope["ds"]
        if kind == "one_shot":
            it = tf.compat.v1.data.make_one_shot_iterator(ds)
            init = None
        elif kind == "initializable":
            it = tf.compat.v1.data.make_initializable_iterator(ds)
            init = it.initializer
        else:
            it = tf.compat.v1.data.Iterator.from_structure(tf.compat.v1.data.get_output_types(ds),
                                                           tf.compat.v1.data.get_output_shapes(ds))
            init = it.make_initializer(ds)
        nxt = it.get_next()
        types = [t.name for t in _flatten(tf.compat.v1.data.get_output_types(ds))]
        shapes = [None if s.ndims is None else s.as_list() for s in _flatten(tf.compat.v1.data.get_output_shapes(ds))]
        out = []
        with tf.compat.v1.Session(graph=g) as sess:
            if init is not None:
                sess.run(init)
            for _ in range(500):
                try:
                    out.append([_leaf(v) for v in _flatten(sess.run(nxt))])
                except tf.errors.OutOfRangeError as e:
                    end = "OutOfRange" + (": End of sequence" if "End of sequence" in e.message else ": " + e.message)
                    return {"elements": out, "end": end, "types": types, "shapes": shapes}
    return {"elements": out, "end": "no end", "types": types, "shapes": shapes}


if __name__ == "__main__":
    import tensorflow as tf_module
    tf_module.compat.v1.disable_eager_execution()
    directory, out_path = sys.argv[1], sys.argv[2]
    write_files(tf_module, directory)
    results = {name: drain(tf_module.compat.v1, source, directory, kind) for name, (kind, source) in PROGRAMS.items()}
    with open(out_path, "w") as f:
        json.dump(results, f)
