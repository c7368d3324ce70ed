"""Issue 20's input pipeline benchmark, tensorweave's side (and TensorFlow's: the same
program under tf.compat.v1 with --tf, run by build/peer-venv's python).

  data_pipeline.py [--tf] write DIR N          N records in 4 files (tensorweave's writer only)
  data_pipeline.py [--tf] read DIR EPOCHS      records/s through TFRecordDataset -> map(parse
                                               28x28 Example, num_parallel_calls=2) -> batch(128)
                                               -> prefetch(2), and with batch before a map of
                                               parse_example; median of EPOCHS passes
  data_pipeline.py [--tf] train DIR STEPS      an MLP step (784-512-512-10, SGD) on one thread
                                               (intra-op pool of 1; inter-op 1 and the default,
                                               the better in RESULT) fed by each, and by an
                                               in-memory dataset repeating one batch
                                               pipeline (shuffled, repeated; its threads are its
                                               own) and by one preloaded batch in the graph (no
                                               input cost): median ms each

Prints figures and one RESULT line."""
import glob
import os
import statistics
import sys
import time

import numpy as np

USE_TF = "--tf" in sys.argv
argv = [a for a in sys.argv[1:] if a != "--tf"]
if USE_TF:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow.compat.v1 as tf
    tf.get_logger().setLevel("ERROR")  # disable_v2_behavior's deprecation notices
    tf.disable_v2_behavior()
    NAME = "TensorFlow"
else:
    import tensorweave as tf
    NAME = "tensorweave"
BATCH = 128


def write(directory, n):
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(0)
    per_file = n // 4
    for f in range(4):
        with tf.python_io.TFRecordWriter(os.path.join(directory, "part-%d.tfrecord" % f)) as writer:
            for _ in range(per_file):
                image = rng.random((28, 28), dtype=np.float32)
                example = tf.train.Example(features=tf.train.Features(feature={
                    "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image.tobytes()])),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(rng.integers(10))]))}))
                writer.write(example.SerializeToString())
    print("wrote %d records to %s" % (4 * per_file, directory))


def decode(serialized):
    features = tf.parse_single_example(serialized, {"image_raw": tf.FixedLenFeature([], tf.string),
                                                    "label": tf.FixedLenFeature([], tf.int64)})
    image = tf.reshape(tf.decode_raw(features["image_raw"], tf.float32), [784])
    return image, tf.cast(features["label"], tf.int32)


def decode_batch(serialized):
    """The vectorized form TF's performance guide recommends for a cheap map: batch the
    records first, then parse them all in one ParseExample."""
    features = tf.parse_example(serialized, {"image_raw": tf.FixedLenFeature([], tf.string),
                                             "label": tf.FixedLenFeature([], tf.int64)})
    images = tf.reshape(tf.decode_raw(features["image_raw"], tf.float32), [-1, 784])
    return images, tf.cast(features["label"], tf.int32)


def pipeline(directory, form, training):
    """form "per-record": map(parse_single_example, 2 calls) then batch (what programs
    usually write); "batched": batch then map(parse_example)."""
    records = tf.data.TFRecordDataset(files(directory))
    if training:
        records = records.shuffle(1000, seed=0).repeat()
    if form == "per-record":
        return records.map(decode, num_parallel_calls=2).batch(BATCH).prefetch(2)
    return records.batch(BATCH).map(decode_batch, num_parallel_calls=2).prefetch(2)


FORMS = ("per-record", "batched")


def files(directory):
    return sorted(glob.glob(os.path.join(directory, "part-*.tfrecord")))


def read(directory, epochs):
    """Both forms; RESULT has each (records/s, median of the passes)."""
    results = []
    for form in FORMS:
        with tf.Graph().as_default():
            iterator = tf.data.make_initializable_iterator(pipeline(directory, form, training=False))
            images, labels = iterator.get_next()
            rates = []
            with tf.Session() as sess:
                for epoch in range(epochs + 1):  # The first pass warms up (file cache, allocations).
                    sess.run(iterator.initializer)
                    n, start = 0, time.perf_counter()
                    try:
                        while True:
                            n += len(sess.run(labels))
                    except tf.errors.OutOfRangeError:
                        pass
                    if epoch:
                        rates.append(n / (time.perf_counter() - start))
        results.append(statistics.median(rates))
        print("%s tf.data (%s parse): %d records a pass, median %.0f records/s over %d passes"
              % (NAME, form, n, results[-1], epochs))
    print("RESULT per_record=%.0f batched=%.0f" % tuple(results))


def mlp_step(images, labels):
    rng = np.random.default_rng(1)
    x = images
    for size_in, size_out in ((784, 512), (512, 512)):
        w = tf.Variable(rng.normal(0, 0.05, (size_in, size_out)).astype(np.float32))
        x = tf.nn.relu(tf.matmul(x, w))
    logits = tf.matmul(x, tf.Variable(rng.normal(0, 0.05, (512, 10)).astype(np.float32)))
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    return tf.train.GradientDescentOptimizer(0.01).minimize(loss)


def step_ms(train_op, steps, inter_op):
    # The step on one core leaves the other to the pipeline: on 2 cores, the case where it
    # can hide its cost (with both busy stepping, its work would add to the step's).
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=inter_op)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(20):
            sess.run(train_op)
        times = []
        for _ in range(steps):
            start = time.perf_counter()
            sess.run(train_op)
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def train(directory, steps):
    """Per form, both inter-op settings (1 thread; the default, 0): the better one's ratio."""
    rng = np.random.default_rng(2)
    batch = rng.random((BATCH, 784), dtype=np.float32), rng.integers(0, 10, BATCH).astype(np.int32)
    fields = []
    for form in FORMS + ("in-memory",):
        best = None
        for inter_op in (1, 0):
            with tf.Graph().as_default():
                # "in-memory": the same batch again, from_tensors(...).repeat(): the cost of
                # the iterator alone, the floor of what a pipeline can hide.
                source = (tf.data.Dataset.from_tensors(batch).repeat().prefetch(2) if form == "in-memory"
                          else pipeline(directory, form, True))
                piped = step_ms(mlp_step(*tf.data.make_one_shot_iterator(source).get_next()), steps, inter_op)
            with tf.Graph().as_default():
                preloaded = step_ms(mlp_step(tf.constant(batch[0]), tf.constant(batch[1])), steps, inter_op)
            print("%s MLP step (%s parse, inter_op_parallelism_threads=%d), median ms: fed by tf.data %.2f, "
                  "preloaded batch %.2f; tf.data / preloaded %.3f" % (NAME, form, inter_op, piped, preloaded,
                                                                       piped / preloaded))
            if best is None or piped / preloaded < best[0] / best[1]:
                best = piped, preloaded
        fields.append("%s=%.3f" % (form.replace("-", "_"), best[0] / best[1]))
    print("RESULT " + " ".join(fields))


if __name__ == "__main__":
    command, directory, count = argv[0], argv[1], int(argv[2])
    {"write": write, "read": read, "train": train}[command](directory, count)
