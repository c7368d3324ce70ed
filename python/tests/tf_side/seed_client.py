"""TensorFlow's side of test_tf_client_on_tw.py: the seed programs as a real TensorFlow
client writes them (tf.compat.v1), each run once in TensorFlow's own process and once with
tf.Session(TARGET). Prints one JSON object: {program: {"local": value, "remote": value}}
or, for a program that fails on TARGET, {"error": "<ErrorClass>: <message>"}.
    seed_client.py TARGET VALUES_NPY PROGRAM..."""
import json
import sys

import numpy as np
import tensorflow as tf
from seed003 import data_parallel_losses

tf = tf.compat.v1
tf.disable_eager_execution()


def hello():
    x = tf.constant(2)
    y1 = x + 300
    y2 = x - 66
    y = y1 + y2
    return y, {}


def mean(values):
    x = tf.placeholder(tf.float32, 100)
    mean = tf.reduce_mean(x)
    return mean, {x: values}


def distributed_238():
    x = tf.constant(2)
    with tf.device("/job:local/task:1"):
        y2 = x - 66
    with tf.device("/job:local/task:0"):
        y1 = x + 300
        y = y1 + y2
    return y, {}


def map_reduce_mean(values):
    x = tf.placeholder(tf.float32, 100)
    with tf.device("/job:local/task:1"):
        first_batch = tf.slice(x, [0], [50])
        mean1 = tf.reduce_mean(first_batch)
    with tf.device("/job:local/task:0"):
        second_batch = tf.slice(x, [50], [-1])
        mean2 = tf.reduce_mean(second_batch)
        mean = (mean1 + mean2) / 2
    return mean, {x: values}


def unsupported_op():
    # An op tensorweave's registry does not have (and no issue asks for): refused with its
    # usual error.
    x = tf.constant([65, 0x0410, 0x4E00])
    return tf.strings.unicode_script(x), {}


def strings(values):
    # String feeds and fetches as TensorFlow's client encodes them (DT_STRING TensorProtos).
    p = tf.placeholder(tf.string, [2])
    return tf.strings.join([p, tf.constant(["x", "\u00e9" * 300])], separator="-"), {p: [b"\x00a", "b"]}


def extend_and_callable(values):
    # A second sess.run after new nodes were added (ExtendSession), make_callable
    # (MakeCallable / RunCallable / ReleaseCallable) and list_devices (ListDevices).
    x = tf.placeholder(tf.float32, 100)
    total = tf.reduce_sum(x)
    return (total, lambda: tf.reduce_max(x)), {x: values}


STEPS, BATCH = 30, 100


def data_parallel(target):
    return data_parallel_losses(tf, target, STEPS, BATCH)


def run(program, values, target):
    g = tf.Graph()
    if program == "data_parallel":
        with g.as_default():
            return data_parallel(target)
    with g.as_default():
        fetch, feeds = PROGRAMS[program](values)
        with tf.Session(target) as sess:
            if program == "extend_and_callable":
                total, make_max = fetch
                first = sess.run(total, feeds)
                biggest = sess.run(make_max(), feeds)  # New nodes: the graph is extended.
                x = next(iter(feeds))
                call = sess.make_callable(total, feed_list=[x])
                devices = sorted(d.name for d in sess.list_devices())
                return [float(first), float(biggest), float(call(feeds[x])), devices]
            result = sess.run(fetch, feeds)
            if result.dtype == object:  # Strings: JSON has no bytes.
                return [b.decode("latin-1") for b in result.tolist()]
            return result.tolist()


PROGRAMS = {
    "hello": lambda v: hello(),
    "mean": mean,
    "distributed_238": lambda v: distributed_238(),
    "map_reduce_mean": map_reduce_mean,
    "unsupported_op": lambda v: unsupported_op(),
    "strings": strings,
    "extend_and_callable": extend_and_callable,
    "data_parallel": None,  # run() builds it: the cluster and the single-process graphs differ.
}


def main(target, values_path, programs):
    values = np.load(values_path)
    results = {}
    for program in programs:
        result = {}
        try:
            result["remote"] = run(program, values, target)
        except tf.errors.OpError as e:
            result["error"] = "%s: %s" % (type(e).__name__, e.message)
        if program not in ("distributed_238", "map_reduce_mean"):  # Those name a cluster's tasks.
            try:
                result["local"] = run(program, values, "")
            except tf.errors.OpError as e:
                result["local_error"] = "%s: %s" % (type(e).__name__, e.message)
        results[program] = result
    print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
