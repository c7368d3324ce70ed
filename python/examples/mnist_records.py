"""An input pipeline end to end: writes synthetic MNIST-shaped examples (28x28 float
images as raw bytes, int64 labels) as tf.train.Examples into TFRecord files, then trains a
small classifier reading them back under MonitoredTrainingSession, through tf.data
(--input data, the default: TFRecordDataset -> shard per worker -> parallel map of
parse_single_example + decode_raw -> shuffle -> repeat -> batch -> prefetch) or TF 1.x's
queues (--input queues: string_input_producer -> TFRecordReader -> shuffle_batch). Prints
the loss as it trains and the accuracy on held-out examples (written to their own file);
exits 1 below --target.
    mnist_records.py [--dir DIR] [--train 2000] [--steps 300] [--target 0.9] [--seed 0]
                     [--input data|queues] [--num_workers 1] [--worker_index 0]"""
import argparse
import os
import sys
import tempfile

import numpy as np

import tensorweave as tf


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
    args = parser.parse_args()
    directory = args.dir or tempfile.mkdtemp(prefix="mnist_records_")
    rng = np.random.default_rng(args.seed)
    templates = make_templates(rng)
    train_files = [os.path.join(directory, "train-%d.tfrecord" % i) for i in range(2)]
    for path in train_files:
        write_records(path, rng, templates, args.train // 2)
    held_out_file = os.path.join(directory, "held_out.tfrecord")
    write_records(held_out_file, rng, templates, 500)
    print("wrote %d training examples to %s" % (args.train, ", ".join(os.path.basename(f) for f in train_files)))

    tf.set_random_seed(args.seed)
    if args.input == "data":
        dataset = (tf.data.TFRecordDataset(train_files).shard(args.num_workers, args.worker_index)
                   .map(decode, num_parallel_calls=2).shuffle(500, seed=args.seed).repeat().batch(32).prefetch(2))
        images, labels = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
    else:
        filenames = tf.train.string_input_producer(train_files, shuffle=True)
        _, serialized = tf.TFRecordReader().read(filenames)
        image, label = decode(serialized)
        images, labels = tf.train.shuffle_batch([image, label], batch_size=32, capacity=500, min_after_dequeue=200,
                                                num_threads=2)

    w1 = tf.Variable(tf.truncated_normal([784, 128], stddev=0.05), name="w1")
    b1 = tf.Variable(tf.zeros([128]), name="b1")
    w2 = tf.Variable(tf.truncated_normal([128, 10], stddev=0.05), name="w2")
    b2 = tf.Variable(tf.zeros([10]), name="b2")

    def logits(x):
        return tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2

    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits(images)))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss, global_step=global_step)

    eval_x = tf.placeholder(tf.float32, [None, 784])
    eval_y = tf.placeholder(tf.int32, [None])
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits(eval_x), 1), tf.int32), eval_y), tf.float32))
    held_x, held_y = read_all(held_out_file)

    hooks = [tf.train.StopAtStepHook(last_step=args.steps)]
    with tf.train.MonitoredTrainingSession(hooks=hooks, log_step_count_steps=0) as sess:
        while not sess.should_stop():
            _, step, value = sess.run([train_op, global_step, loss])
            if step % 100 == 0 or step == 1:
                print("step %d  loss %.4f" % (step, value))
        result = sess.run(accuracy, {eval_x: held_x, eval_y: held_y})
    print("held-out accuracy %.4f" % result)
    return 0 if result >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
