"""Data-parallel training of the benchmarks' 784-256-10 MLP by all-reduce, no parameter
server (tensorweave.horovod, Horovod's API): each worker process computes gradients on its
half of the batch, DistributedOptimizer averages them over the workers (in buckets), and
every worker applies the same update. The loss printed is the mean over the workers (itself
all-reduced): the same on every worker, and the same as training in one process on the
whole batch, which this script also does and compares with.

    /usr/bin/python3 allreduce_mlp.py             # starts 2 worker processes here, compares
    /usr/bin/python3 allreduce_mlp.py --workers 3 --steps 20 --optimizer adam
    TF_CONFIG='{"cluster": {"worker": [...]}, "task": {"type": "worker", "index": 0}}' \\
        /usr/bin/python3 allreduce_mlp.py --worker  # one worker of a cluster started elsewhere
"""
import argparse
import json
import os
import socket
import subprocess
import sys

import numpy as np

import tensorweave as tf

IN, HIDDEN, OUT = 784, 256, 10


def parse_args(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--worker", action="store_true", help="run one worker (rank and size from TF_CONFIG)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batch", type=int, default=128, help="rows per worker")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--optimizer", default="sgd", choices=["sgd", "momentum", "adam"])
    p.add_argument("--bucket_bytes", type=int, default=64 * 1024, help="gradient bucket size (DDP: 25 MB)")
    p.add_argument("--time", type=int, default=0, metavar="STEPS",
                   help="instead: time STEPS training steps (after 30 untimed) x --repeats; rank 0 prints examples/s")
    p.add_argument("--repeats", type=int, default=5)
    return p.parse_args(argv)


def batch(workers, rows):
    """The whole batch (every worker's rows), fixed: uniform inputs, one-hot labels."""
    rng = np.random.default_rng(0)
    x = rng.random((workers * rows, IN), dtype=np.float32)
    labels = np.zeros((workers * rows, OUT), np.float32)
    labels[np.arange(workers * rows), np.arange(workers * rows) % OUT] = 1
    return x, labels


def model(x, labels):
    """The MLP's mean loss; the same seeded initial values in every process."""
    w1 = tf.Variable(tf.truncated_normal([IN, HIDDEN], stddev=0.05, seed=1), name="w1")
    b1 = tf.Variable(tf.zeros([HIDDEN]), name="b1")
    w2 = tf.Variable(tf.truncated_normal([HIDDEN, OUT], stddev=0.05, seed=2), name="w2")
    b2 = tf.Variable(tf.zeros([OUT]), name="b2")
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))


def optimizer(name):
    return {"sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
            "momentum": lambda: tf.train.MomentumOptimizer(0.05, 0.9),
            "adam": lambda: tf.train.AdamOptimizer(1e-3)}[name]()


def run_worker(args):
    import tensorweave.horovod as hvd
    hvd.init()
    x_all, labels_all = batch(hvd.size(), args.batch)
    rows = slice(hvd.rank() * args.batch, (hvd.rank() + 1) * args.batch)
    x = tf.placeholder(tf.float32, [args.batch, IN])
    labels = tf.placeholder(tf.float32, [args.batch, OUT])
    loss = model(x, labels)
    train_op = hvd.DistributedOptimizer(optimizer(args.optimizer), bucket_bytes=args.bucket_bytes).minimize(loss)
    mean_loss = hvd.allreduce(loss, average=True)
    bcast = hvd.broadcast_global_variables(0)
    with tf.Session(hvd.target()) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(bcast)
        feed = {x: x_all[rows], labels: labels_all[rows]}
        if args.time:
            time_steps(sess, train_op, feed, args, hvd)
            return
        for step in range(args.steps):
            value, _ = sess.run([mean_loss, train_op], feed)
            print("rank %d step %d loss %.9g" % (hvd.rank(), step, value), flush=True)


def time_steps(sess, train_op, feed, args, hvd):
    import statistics
    import time
    for _ in range(30):
        sess.run(train_op, feed)
    rates = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for _ in range(args.time):
            sess.run(train_op, feed)  # Each step waits for every worker's gradients: in step.
        rates.append(args.time * args.batch * hvd.size() / (time.perf_counter() - start))
    if hvd.rank() == 0:
        median = statistics.median(rates)
        print("tensorweave all-reduce MLP 784-256-10 %s, %d process(es), batch %d per process: %.0f examples/s median"
              " (%.2f ms/step)" % (args.optimizer, hvd.size(), args.batch, median,
                                   1000 * args.batch * hvd.size() / median), flush=True)
        print("RESULT examples_per_s=%.1f" % median, flush=True)


def single_process(args):
    """The same training in this process on the whole batch: the losses to expect."""
    g = tf.Graph()
    with g.as_default():
        x_all, labels_all = batch(args.workers, args.batch)
        loss = model(tf.constant(x_all), tf.constant(labels_all))
        train_op = optimizer(args.optimizer).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return [sess.run([loss, train_op])[0] for _ in range(args.steps)]


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def main(argv):
    args = parse_args(argv)
    if args.worker:
        run_worker(args)
        return 0
    cluster = {"worker": ["localhost:%d" % free_port() for _ in range(args.workers)]}
    procs = []
    for rank in range(args.workers):
        env = dict(os.environ, TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": rank}}))
        procs.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"] + argv, env=env,
                                      stdout=subprocess.PIPE, text=True))
    losses = {}
    for rank, proc in enumerate(procs):
        out, _ = proc.communicate(timeout=600)
        if proc.returncode != 0:
            print("worker %d failed (exit %d)" % (rank, proc.returncode))
            return 1
        if args.time:
            print(out, end="")
            continue
        losses[rank] = [float(line.split()[-1]) for line in out.splitlines() if line.startswith("rank ")]
    if args.time:
        return 0
    expected = single_process(args)
    for step in range(args.steps):
        print("step %d  workers %s  one process %.6f" % (
            step, " ".join("%.6f" % losses[r][step] for r in range(args.workers)), expected[step]))
    same = all(losses[r] == losses[0] for r in range(args.workers))
    diff = max(abs(losses[0][s] - expected[s]) for s in range(args.steps))
    print("losses equal on every worker: %s; largest difference from one process: %.3g" % (same, diff))
    return 0 if same and diff < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
