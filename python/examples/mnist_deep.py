"""TensorFlow 1.x's "Deep MNIST" tutorial network, written with tf.layers: conv 5x5 ->
max pool -> conv 5x5 -> max pool -> dense + dropout -> dense, trained with Adam. The data are
synthetic, MNIST-shaped (28x28x1, 10 classes): each class is a fixed random stroke pattern,
each image that pattern shifted by up to 3 pixels with noise added, so the network must learn
shift-tolerant features. The widths are the tutorial's (32, 64, 1024) divided by --shrink
(1: the tutorial's; about 20 s on one core). Prints the held-out accuracy (500 images) and
exits 1 below --target.
    mnist_deep.py [--steps 150] [--shrink 1] [--target 0.95] [--seed 0]"""
import argparse
import sys

import numpy as np

import tensorweave as tf


def make_data(rng, templates, n):
    labels = rng.integers(0, 10, n)
    images = np.zeros((n, 28, 28, 1), np.float32)
    for i, label in enumerate(labels):
        dy, dx = rng.integers(-3, 4, 2)
        images[i, :, :, 0] = np.roll(templates[label], (dy, dx), axis=(0, 1))
    images += rng.normal(0, 0.3, images.shape).astype(np.float32)
    return images, labels.astype(np.int32)


def make_templates(rng):
    """Ten patterns of a few random line strokes each, inside the middle 20x20."""
    templates = np.zeros((10, 28, 28), np.float32)
    for t in templates:
        for _ in range(4):
            (y0, x0), (y1, x1) = rng.integers(4, 24, (2, 2))
            for s in np.linspace(0, 1, 30):
                t[int(round(y0 + s * (y1 - y0))), int(round(x0 + s * (x1 - x0)))] = 1.0
    return templates


def deepnn(x, keep_training, shrink):
    h = tf.layers.conv2d(x, 32 // shrink, 5, padding="same", activation=tf.nn.relu, name="conv1")
    h = tf.layers.max_pooling2d(h, 2, 2, name="pool1")
    h = tf.layers.conv2d(h, 64 // shrink, 5, padding="same", activation=tf.nn.relu, name="conv2")
    h = tf.layers.max_pooling2d(h, 2, 2, name="pool2")
    h = tf.layers.flatten(h)
    h = tf.layers.dense(h, 1024 // shrink, activation=tf.nn.relu, name="fc1")
    h = tf.layers.dropout(h, rate=0.5, training=keep_training)
    return tf.layers.dense(h, 10, name="fc2")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--shrink", type=int, default=1)
    parser.add_argument("--target", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    templates = make_templates(rng)
    train_x, train_y = make_data(rng, templates, 2000)
    test_x, test_y = make_data(rng, templates, 500)

    tf.set_random_seed(args.seed)
    x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    training = tf.placeholder_with_default(False, [], name="training")
    logits = deepnn(x, training, args.shrink)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
    correct = tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(args.steps):
            batch = rng.integers(0, len(train_x), 50)
            value, _ = sess.run([loss, train_op], {x: train_x[batch], y: train_y[batch], training: True})
            if step % 50 == 0:
                print("step %d  loss %.4f" % (step, value))
        held_out = sess.run(accuracy, {x: test_x, y: test_y})
    print("held-out accuracy %.4f" % held_out)
    return 0 if held_out >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
