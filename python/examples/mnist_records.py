"""An input pipeline end to end: writes synthetic MNIST-shaped examples (28x28 float
images as raw bytes, int64 labels) as tf.train.Examples into TFRecord files, then trains a
small classifier reading them back under MonitoredTrainingSession, through tf.data
(--input data, the default: TFRecordDataset -> shard per worker -> parallel map of
parse_single_example + decode_raw -> shuffle -> repeat -> batch -> prefetch) or TF 1.x's
queues (--input queues: string_input_producer -> TFRecordReader -> shuffle_batch). Prints
the loss, steps/s and ETA as it trains and the accuracy on held-out examples (written to
their own file); exits 1 below --target.

--cluster trains between-graph on a local cluster of 1 ps + 2 workers (threads of this
process), each worker reading its own shard of the records through tf.data. --logdir
writes the loss, the batch accuracy and the weights' histograms there for TensorBoard (the
chief's SummarySaverHook), with the checkpoints; `tw board LOGDIR --out run.html` draws them.
    mnist_records.py [--dir DIR] [--train 2000] [--steps 300] [--target 0.9] [--seed 0]
                     [--input data|queues] [--num_workers 1] [--worker_index 0]
                     [--cluster] [--logdir DIR] [--summary_steps 20]"""
import argparse
import os
import sys
import tempfile
import threading

import numpy as np

import tensorweave as tf
from tensorweave.local_cluster import start_local_cluster

from progress import Progress, say
from worker_threads import run_worker_threads


def make_templates(rng):
    """Ten patterns of a few random strokes each; an example is one shifted, with noise."""
    templates = np.zeros((10, 28, 28), np.float32)
    for t in templates:
        for _ in range(4):
            (y0, x0), (y1, x1) = rng.integers(4, 24, (2, 2))
            for s in np.linspace(0, 1, 30):
                t[int(round(y0 + s * (y1 - y0))), int(round(x0 + s * (x1 - x0)))] = 1.0
    return templates


def write_records(path, rng, templates, n):
    with tf.python_io.TFRecordWriter(path) as writer:
        for _ in range(n):
            label = int(rng.integers(0, 10))
            dy, dx = rng.integers(-2, 3, 2)
            image = np.roll(templates[label], (dy, dx), axis=(0, 1)) + rng.normal(0, 0.3, (28, 28))
            example = tf.train.Example(features=tf.train.Features(feature={
                "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image.astype("<f4").tobytes()])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))}))
            writer.write(example.SerializeToString())


def decode(serialized):
    features = tf.parse_single_example(serialized, {"image_raw": tf.FixedLenFeature([], tf.string),
                                                    "label": tf.FixedLenFeature([], tf.int64)})
    image = tf.reshape(tf.decode_raw(features["image_raw"], tf.float32), [784])
    return image, tf.cast(features["label"], tf.int32)


def read_all(path):
    """The held-out file, decoded in NumPy from the records (independently of the pipeline)."""
    images, labels = [], []
    for record in tf.python_io.tf_record_iterator(path):
        example = tf.train.Example.FromString(record)
        images.append(np.frombuffer(example.features.feature["image_raw"].bytes_list.value[0], "<f4"))
        labels.append(example.features.feature["label"].int64_list.value[0])
    return np.stack(images), np.array(labels, np.int32)


def input_batches(args, train_files, num_workers, worker_index):
    if args.input == "data":
        dataset = (tf.data.TFRecordDataset(train_files).shard(num_workers, worker_index)
                   .map(decode, num_parallel_calls=2).shuffle(500, seed=args.seed).repeat().batch(32).prefetch(2))
        return tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
    filenames = tf.train.string_input_producer(train_files, shuffle=True)
    _, serialized = tf.TFRecordReader().read(filenames)
    image, label = decode(serialized)
    return tf.train.shuffle_batch([image, label], batch_size=32, capacity=500, min_after_dequeue=200, num_threads=2)


def build(images, labels):
    """The classifier, its training step and the summaries. Returns (train_op giving the
    global step after its update, loss, (eval_x, eval_y, accuracy))."""
    w1 = tf.Variable(tf.truncated_normal([784, 128], stddev=0.05), name="w1")
    b1 = tf.Variable(tf.zeros([128]), name="b1")
    w2 = tf.Variable(tf.truncated_normal([128, 10], stddev=0.05), name="w2")
    b2 = tf.Variable(tf.zeros([10]), name="b2")

    def logits(x):
        return tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2

    def accuracy(x, y):
        return tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits(x), 1), tf.int32), y), tf.float32))

    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits(images)))
    global_step = tf.train.get_or_create_global_step()
    with tf.control_dependencies([tf.train.AdamOptimizer(1e-3).minimize(loss, global_step=global_step)]):
        train_op = global_step.read_value()  # the global step after this update
    tf.summary.scalar("loss", loss)
    tf.summary.scalar("batch_accuracy", accuracy(images, labels))
    tf.summary.histogram("hidden_weights", w1)
    tf.summary.histogram("output_weights", w2)
    eval_x = tf.placeholder(tf.float32, [None, 784])
    eval_y = tf.placeholder(tf.int32, [None])
    return train_op, loss, (eval_x, eval_y, accuracy(eval_x, eval_y))


def train(args, model, master="", is_chief=True, label="", initialized=None):
    """Trains to --steps global steps; returns the number this worker ran and, from the
    chief, the accuracy on the held-out examples. `initialized` (a threading.Event): set by
    the chief once the variables are, awaited by the others before their session starts
    (else they would find them uninitialized and wait out the 30 s between checks, as TF's)."""
    train_op, loss, (eval_x, eval_y, accuracy) = model
    hooks = [tf.train.StopAtStepHook(last_step=args.steps)]
    own, progress, result = 0, Progress(args.steps, label), None
    if initialized is not None and not is_chief and not initialized.wait(120):
        raise RuntimeError("the chief did not initialize the variables")
    with tf.train.MonitoredTrainingSession(master=master, is_chief=is_chief, checkpoint_dir=args.logdir, hooks=hooks,
                                           save_summaries_steps=args.summary_steps, log_step_count_steps=0) as sess:
        if initialized is not None and is_chief:
            initialized.set()
        while not sess.should_stop():
            step, value = sess.run([train_op, loss])
            own += 1
            progress.step(step, value)
        if is_chief:
            held_x, held_y = read_all(args.held_out_file)
            result = sess.run(accuracy, {eval_x: held_x, eval_y: held_y})
    return own, result


def train_on_cluster(args, train_files):
    """Between-graph on 1 ps + 2 workers: each worker thread builds its graph with the
    variables on the ps (replica_device_setter) and its input pipeline on itself, reading
    shard `task` of 2, and trains until the shared global step reaches --steps."""
    cluster, servers = start_local_cluster(jobs={"ps": 1, "worker": 2})
    results, initialized = {}, threading.Event()

    def worker(task):
        with tf.Graph().as_default():
            tf.set_random_seed(args.seed)
            with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:%d" % task)):
                model = build(*input_batches(args, train_files, 2, task))
            own, results[task] = train(args, model, servers[1 + task].target, task == 0, "worker %d  " % task,
                                       initialized)
            say("worker %d  trained %d of the steps" % (task, own))

    run_worker_threads(worker, (0, 1), servers)
    return results[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", default=None)
    parser.add_argument("--train", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--target", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--input", choices=["data", "queues"], default="data")
    parser.add_argument("--num_workers", type=int, default=1)  # tf.data: this worker reads its shard.
    parser.add_argument("--worker_index", type=int, default=0)
    parser.add_argument("--cluster", action="store_true", help="train between-graph on 1 ps + 2 workers")
    parser.add_argument("--logdir", default=None, help="summaries and checkpoints go here (tw board LOGDIR)")
    parser.add_argument("--summary_steps", type=int, default=20, help="write the summaries every N steps")
    args = parser.parse_args()
    if args.cluster and args.input != "data":
        parser.error("--cluster reads its shards through tf.data (--input data)")
    directory = args.dir or tempfile.mkdtemp(prefix="mnist_records_")
    rng = np.random.default_rng(args.seed)
    templates = make_templates(rng)
    train_files = [os.path.join(directory, "train-%d.tfrecord" % i) for i in range(2)]
    for path in train_files:
        write_records(path, rng, templates, args.train // 2)
    args.held_out_file = os.path.join(directory, "held_out.tfrecord")
    write_records(args.held_out_file, rng, templates, 500)
    say("wrote %d training examples to %s" % (args.train, ", ".join(os.path.basename(f) for f in train_files)))

    if args.cluster:
        result = train_on_cluster(args, train_files)
    else:
        tf.set_random_seed(args.seed)
        _, result = train(args, build(*input_batches(args, train_files, args.num_workers, args.worker_index)))
    say("held-out accuracy %.4f" % result)
    if args.logdir:
        say("summaries in %s: tw board %s --out run.html" % (args.logdir, args.logdir))
    return 0 if result >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
