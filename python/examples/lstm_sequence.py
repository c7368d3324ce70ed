"""An LSTM classifier of variable-length sequences: tf.nn.dynamic_rnn with sequence_length
over a BasicLSTMCell, the final state's h into a dense layer, trained with Adam.

The data are synthetic: each sequence is 4 to 20 one-hot symbols out of 4, its label the
symbol that occurs most often in it (ties go to the lowest symbol); every batch is padded
to 20 steps with random symbols, so a model that ignored sequence_length would count the
padding too. Prints the loss, steps/s and ETA every 100 steps and the held-out accuracy (1,000 sequences),
and exits 1 below --target. --cluster trains the same between-graph on 1 ps + 2 workers.
    /usr/bin/python3 lstm_sequence.py [--steps 400] [--units 32] [--target 0.9] [--seed 0] [--cluster]"""
import argparse
import sys
import threading

import numpy as np

import tensorweave as tf
from tensorweave.local_cluster import start_local_cluster

from progress import Progress, say
from worker_threads import run_worker_threads

SYMBOLS, MAX_LEN = 4, 20


def make_data(rng, n):
    lengths = rng.integers(4, MAX_LEN + 1, n)
    symbols = rng.integers(0, SYMBOLS, (n, MAX_LEN))  # Past a sequence's length: padding.
    labels = np.array([np.bincount(s[:k], minlength=SYMBOLS).argmax() for s, k in zip(symbols, lengths)])
    return np.eye(SYMBOLS, dtype=np.float32)[symbols], lengths.astype(np.int32), labels.astype(np.int32)


def build(units, seed):
    """The model: (placeholders x, lengths, y), loss, train op (giving the global step after it),
    the global step, accuracy."""
    x = tf.placeholder(tf.float32, [None, MAX_LEN, SYMBOLS], name="x")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    y = tf.placeholder(tf.int32, [None], name="y")
    tf.set_random_seed(seed)
    cell = tf.nn.rnn_cell.BasicLSTMCell(units)
    _, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
    logits = tf.layers.dense(state.h, SYMBOLS)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    step = tf.train.get_or_create_global_step()
    with tf.control_dependencies([tf.train.AdamOptimizer(1e-2).minimize(loss, global_step=step)]):
        train_op = step.read_value()  # the global step after this update
    correct = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y), tf.float32))
    return (x, lengths, y), loss, train_op, step, correct


def train(sess, model, data, rng, steps, label=""):
    (x, lengths, y), loss, train_op, _, _ = model
    train_x, train_len, train_y = data
    own, progress = 0, Progress(steps, label)
    while True:
        batch = rng.integers(0, len(train_x), 64)
        value, done = sess.run([loss, train_op], {x: train_x[batch], lengths: train_len[batch], y: train_y[batch]})
        own += 1
        progress.step(done, value)
        if done >= steps:
            return own


def accuracy(sess, model, data):
    (x, lengths, y), _, _, _, correct = model
    return sess.run(correct, {x: data[0], lengths: data[1], y: data[2]})


def train_on_cluster(args, train_data, test_data):
    """Between-graph on 1 ps + 2 workers: each worker thread builds its own graph with the
    variables on the ps (replica_device_setter) and trains asynchronously until the shared
    global step reaches --steps. Each step reads the weights from the ps into the worker's
    loop and sends their gradients back (about 39 KB a step with 32 units)."""
    cluster, servers = start_local_cluster(jobs={"ps": 1, "worker": 2})
    ready, result = threading.Event(), {}

    def worker(task):
        with tf.Graph().as_default():
            with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:%d" % task)):
                model = build(args.units, args.seed)
            with tf.Session(servers[1 + task].target) as sess:
                if task == 0:
                    sess.run(tf.global_variables_initializer())
                    ready.set()
                elif not ready.wait(120):
                    raise RuntimeError("the chief did not initialize the variables")
                own = train(sess, model, train_data, np.random.default_rng(args.seed + 1 + task), args.steps,
                            label="worker %d  " % task)
                say("worker %d  trained %d of the steps" % (task, own))
                if task == 0:
                    result["accuracy"] = accuracy(sess, model, test_data)

    run_worker_threads(worker, (0, 1), servers)
    return result["accuracy"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--units", type=int, default=32)
    parser.add_argument("--target", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cluster", action="store_true", help="train between-graph on 1 ps + 2 workers")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    train_data = make_data(rng, 5000)
    test_data = make_data(rng, 1000)
    if args.cluster:
        held_out = train_on_cluster(args, train_data, test_data)
    else:
        model = build(args.units, args.seed)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            train(sess, model, train_data, rng, args.steps)
            held_out = accuracy(sess, model, test_data)
    print("held-out accuracy %.4f" % held_out)
    return 0 if held_out >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
