"""A synthetic stand-in for TensorFlow 1.x's tensorflow.examples.tutorials.mnist.input_data:
read_data_sets() returns train / validation / test sets of MNIST's shapes (784 pixels in
[0, 1], 10 classes, labels one-hot or as indices) without downloading anything. Each class
is a fixed random pattern plus noise, so a model that learns shows it in its accuracy.

Fewer examples than MNIST (TW_MNIST_TRAIN examples, default 5500) keep programs that loop
over whole epochs short."""
import collections
import os

import numpy as np

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


class DataSet:
    """MNIST's DataSet: images, labels, num_examples, epochs_completed, next_batch()."""

    def __init__(self, images, labels, seed):
        self._images = images
        self._labels = labels
        self._num_examples = images.shape[0]
        self._epochs_completed = 0
        self._index_in_epoch = 0
        self._rng = np.random.RandomState(seed)

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self):
        return self._num_examples

    @property
    def epochs_completed(self):
        return self._epochs_completed

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        if self._index_in_epoch + batch_size > self._num_examples:
            self._epochs_completed += 1
            self._index_in_epoch = 0
            if shuffle:
                order = self._rng.permutation(self._num_examples)
                self._images, self._labels = self._images[order], self._labels[order]
        start = self._index_in_epoch
        self._index_in_epoch += batch_size
        return self._images[start:start + batch_size], self._labels[start:start + batch_size]


def _make(n, one_hot, rng, patterns, dtype):
    labels = rng.randint(0, 10, size=n)
    images = np.clip(patterns[labels] + rng.normal(0.0, 0.25, size=(n, 784)), 0.0, 1.0).astype(np.float32)
    if dtype == "uint8":
        images = (images * 255).astype(np.uint8)
    if one_hot:
        return images, np.eye(10, dtype=np.float32)[labels]
    return images, labels.astype(np.uint8)


def read_data_sets(train_dir=None, fake_data=False, one_hot=False, dtype="float32", reshape=True,
                   validation_size=None, seed=None, source_url=None):
    rng = np.random.RandomState(1234)
    patterns = (rng.uniform(size=(10, 784)) < 0.3).astype(np.float32)
    train_size = int(os.environ.get("TW_MNIST_TRAIN", "5500"))
    sets = []
    for i, n in enumerate((train_size, max(train_size // 11, 100), max(train_size // 5, 100))):
        images, labels = _make(n, one_hot, np.random.RandomState(100 + i), patterns, str(dtype).split(".")[-1])
        if not reshape:
            images = images.reshape(n, 28, 28, 1)
        sets.append(DataSet(images, labels, seed=i))
    return Datasets(*sets)


def load_mnist(train_dir="MNIST-data"):
    return read_data_sets(train_dir)
