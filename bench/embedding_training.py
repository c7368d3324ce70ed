"""Issue 17's embedding benchmark, tensorweave's side: a 1,000,000 x 64 float table on one
ps process (`python3 -m tensorweave.server`), two workers (servers in this process, one
client thread each, between-graph, asynchronous), batch 512 per worker of 20 ids per
example averaged (the mean combiner), a dense head 64-64-1 with a logistic loss, plain SGD
(sparse updates of the looked-up rows). Prints examples/s over both workers and the wire
bytes per worker step (tf.train.Server.wire_byte_counts) next to the table's size.
Usage: embedding_training.py STEPS REPEATS WARMUP"""
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
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return ids, labels, train


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
        graphs = []
        for t in range(WORKERS):
            g = tf.Graph()
            with g.as_default():
                ids, labels, train = build(spec, t)
                init = tf.global_variables_initializer() if t == 0 else None
            graphs.append((g, ids, labels, train, init))
        sessions = [tf.Session(servers[t].target, graph=graphs[t][0]) for t in range(WORKERS)]
        sessions[0].run(graphs[0][4])
        rng = np.random.default_rng(0)
        feeds = [{graphs[t][1]: rng.integers(0, VOCAB, (BATCH, IDS)),
                  graphs[t][2]: rng.integers(0, 2, (BATCH, 1)).astype(np.float32)} for t in range(WORKERS)]

        def run(t, n):
            for _ in range(n):
                sessions[t].run(graphs[t][3], feeds[t])

        def parallel(n):
            threads = [threading.Thread(target=run, args=(t, n)) for t in range(WORKERS)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()

        parallel(warmup)
        rates = []
        before = tf.train.Server.wire_byte_counts()
        for r in range(repeats):
            start = time.perf_counter()
            parallel(steps)
            rates.append(steps * BATCH * WORKERS / (time.perf_counter() - start))
            print("repeat %d: %.0f examples/s" % (r, rates[-1]))
        after = tf.train.Server.wire_byte_counts()
        per_step = sum(after[k] - before[k] for k in after) / (repeats * steps * WORKERS)
        median = statistics.median(rates)
        print("tensorweave embedding %dx%d, batch %d x %d ids (mean), 1 ps + %d workers async SGD: %.0f examples/s "
              "median; %.0f wire bytes per worker step (%.2fx the %d bytes of the rows looked up; the table is %d "
              "bytes)" % (VOCAB, DIM, BATCH, IDS, WORKERS, median, per_step, per_step / (BATCH * IDS * DIM * 4),
                          BATCH * IDS * DIM * 4, VOCAB * DIM * 4))
        print("RESULT examples_per_s=%.1f bytes_per_step=%.0f" % (median, per_step))
        for s in sessions:
            s.close()
        for s in servers:
            s.stop()
    finally:
        ps.terminate()
        ps.wait(30)


if __name__ == "__main__":
    main()
