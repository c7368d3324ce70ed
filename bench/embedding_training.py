"""Issue 17's embedding benchmark, tensorweave's side: a 1,000,000 x 64 float table on one
ps process (`python3 -m tensorweave.server`), two workers (servers in this process, one
client thread each, between-graph), batch 512 per worker of 20 ids per example averaged
(the mean combiner), a dense head 64-64-1 with a logistic loss, plain SGD (sparse updates
of the looked-up rows). Asynchronous by default; with --sync, SyncReplicasOptimizer
averages both workers' gradients (sparse accumulators for the table) each step, as DDP
does. Prints examples/s over both workers and the wire bytes per worker step (the
workers' tf.train.Server.wire_byte_counts over the timed rounds) next to the table's size.
Usage: embedding_training.py STEPS REPEATS WARMUP [--sync]"""
import os
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
warmup = int(sys.argv[3]) if len(sys.argv) > 3 else 10
sync = "--sync" in sys.argv[4:]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "python"))
import tensorweave as tf  # noqa: E402
from peer_env import free_ports  # noqa: E402

VOCAB, DIM, BATCH, IDS, WORKERS = 1_000_000, 64, 512, 20, 2


def build(cluster, task):
    with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:%d" % task)):
        table = tf.get_variable("table", shape=[VOCAB, DIM], initializer=tf.random_uniform_initializer(-0.05, 0.05))
        w1 = tf.get_variable("w1", shape=[DIM, DIM], initializer=tf.glorot_uniform_initializer())
        b1 = tf.get_variable("b1", shape=[DIM], initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", shape=[DIM, 1], initializer=tf.glorot_uniform_initializer())
        ids = tf.placeholder(tf.int64, [BATCH, IDS])
        labels = tf.placeholder(tf.float32, [BATCH, 1])
        bag = tf.reduce_mean(tf.nn.embedding_lookup(table, ids), 1)  # The mean combiner.
        logits = tf.matmul(tf.nn.relu(tf.matmul(bag, w1) + b1), w2)
        loss = tf.reduce_mean(tf.nn.relu(logits) - logits * labels + tf.log(1.0 + tf.exp(-tf.abs(logits))))
        opt = tf.train.GradientDescentOptimizer(0.1)
        if sync:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=WORKERS, total_num_replicas=WORKERS)
        train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    return ids, labels, train, opt


def main():
    ps_port, *worker_ports = free_ports(1 + WORKERS)
    cluster = {"ps": ["localhost:%d" % ps_port], "worker": ["localhost:%d" % p for p in worker_ports]}
    spec = "ps|localhost:%d,worker|%s" % (ps_port, ";".join(cluster["worker"]))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tf.__file__)))
    ps = subprocess.Popen([sys.executable, "-m", "tensorweave.server", "--cluster_spec=" + spec, "--job_name=ps",
                           "--task_index=0"], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert ps.stdout.readline().startswith("Started server")
        spec = tf.train.ClusterSpec(cluster)
        servers = [tf.train.Server(spec, job_name="worker", task_index=t) for t in range(WORKERS)]
        graphs = [tf.Graph() for _ in range(WORKERS)]
        built = []
        for t in range(WORKERS):
            with graphs[t].as_default():
                built.append(build(spec, t))
        rng = np.random.default_rng(0)
        feeds = [{built[t][0]: rng.integers(0, VOCAB, (BATCH, IDS)),
                  built[t][1]: rng.integers(0, 2, (BATCH, 1)).astype(np.float32)} for t in range(WORKERS)]
        # Both workers run warmup steps, then `repeats` rounds of `steps` between barriers
        # (in lockstep when synchronous); the chief times the rounds and counts their bytes.
        barrier = threading.Barrier(WORKERS, timeout=600)
        rates, counts, errors = [], [], []

        def worker(t):
            try:
                with graphs[t].as_default():
                    hooks = [built[t][3].make_session_run_hook(t == 0, num_tokens=0)] if sync else []
                    if t != 0:
                        barrier.wait()  # The chief has initialized.
                    with tf.train.MonitoredTrainingSession(master=servers[t].target, is_chief=t == 0, hooks=hooks,
                                                           log_step_count_steps=0, save_checkpoint_secs=None,
                                                           save_summaries_steps=None) as sess:
                        if t == 0:
                            barrier.wait()
                        for _ in range(warmup):
                            sess.run(built[t][2], feeds[t])
                        for r in range(repeats):
                            barrier.wait()
                            if t == 0 and r == 0:
                                counts.append(tf.train.Server.wire_byte_counts())
                            start = time.perf_counter()
                            for _ in range(steps):
                                sess.run(built[t][2], feeds[t])
                            barrier.wait()
                            if t == 0 and r == repeats - 1:
                                counts.append(tf.train.Server.wire_byte_counts())
                            if t == 0:
                                rates.append(steps * BATCH * WORKERS / (time.perf_counter() - start))
                                print("repeat %d: %.0f examples/s" % (r, rates[-1]))
            except Exception as e:  # pylint: disable=broad-except - reported below.
                errors.append((t, e))
                barrier.abort()

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(WORKERS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        if errors:
            raise RuntimeError("workers failed: %s" % errors)
        per_step = sum(counts[1][k] - counts[0][k] for k in counts[0]) / (repeats * steps * WORKERS)
        median = statistics.median(rates)
        print("tensorweave embedding %dx%d, batch %d x %d ids (mean), 1 ps + %d workers %s SGD: %.0f examples/s "
              "median; %.0f wire bytes per worker step (%.2fx the %d bytes of the rows looked up; the table is %d "
              "bytes)" % (VOCAB, DIM, BATCH, IDS, WORKERS, "sync" if sync else "async", median, per_step,
                          per_step / (BATCH * IDS * DIM * 4), BATCH * IDS * DIM * 4, VOCAB * DIM * 4))
        print("RESULT examples_per_s=%.1f bytes_per_step=%.0f" % (median, per_step))
        for s in servers:
            s.stop()
    finally:
        ps.terminate()
        ps.wait(30)


if __name__ == "__main__":
    main()
