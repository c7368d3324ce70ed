"""Seed 002's ps/worker program: a cluster of parameter servers ("ps") and workers; each
worker builds the model with tf.train.replica_device_setter (variables on the ps tasks,
the rest on the worker) and trains it asynchronously under a MonitoredTrainingSession
until the shared global step reaches --steps. The model is a linear regression,
y = x . [1, -2, 3] + 0.5, from batches each worker draws.

    python3 ps_worker.py        # starts 1 ps + 2 workers in this process, trains on both
    python3 ps_worker.py --ps_hosts=localhost:2222 --worker_hosts=localhost:2223,localhost:2224 \\
        --job_name=ps --task_index=0             # (and job_name=worker, task_index 0 and 1)
"""
import argparse
import sys
import threading

import numpy as np

import tensorweave as tf

TRUE_W, TRUE_B = np.array([[1.0], [-2.0], [3.0]], np.float32), 0.5


def log(line):
    """One write per line: the in-process workers print from two threads."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def train_worker(cluster, target, task_index, steps, chief_ready=None, stop=None):
    """One worker: its own graph and session on `target`; the chief (task 0) initializes.
    Trains until the global step reaches `steps` or the `stop` event is set (Ctrl-C)."""
    is_chief = task_index == 0
    this_worker = "/job:worker/task:%d" % task_index
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device=this_worker)):
            x = tf.placeholder(tf.float32, [None, 3])
            y = tf.placeholder(tf.float32, [None, 1])
            w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
            b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
            global_step = tf.train.get_or_create_global_step()
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
        log("worker %d: w on %s, b on %s, loss on %s" % (task_index, w.device, b.device, loss.device))
        rng = np.random.RandomState(task_index)
        hooks = [tf.train.StopAtStepHook(last_step=steps)]
        with tf.train.MonitoredTrainingSession(master=target, is_chief=is_chief, hooks=hooks,
                                               log_step_count_steps=0) as sess:
            log("worker %d: session ready" % task_index)
            if chief_ready is not None:
                chief_ready.set()
            runs, value = 0, float("nan")
            while not sess.should_stop() and not (stop is not None and stop.is_set()):
                xs = rng.uniform(-1, 1, (32, 3)).astype(np.float32)
                _, value = sess.run([train_op, loss], {x: xs, y: xs @ TRUE_W + TRUE_B})
                runs += 1
            log("worker %d: %d steps of its own, global step %d, loss %.6f"
                % (task_index, runs, sess.run(global_step), value))
            if is_chief:
                w_value, b_value = sess.run([w, b])
                log("w = %s, b = %.4f" % (np.round(w_value.ravel(), 4).tolist(), b_value))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ps_hosts", default="", help="host:port,host:port of the ps tasks")
    parser.add_argument("--worker_hosts", default="", help="host:port,host:port of the workers")
    parser.add_argument("--job_name", default="", help="ps or worker")
    parser.add_argument("--task_index", type=int, default=0)
    parser.add_argument("--steps", type=int, default=300, help="the global step to train to")
    args = parser.parse_args()

    if args.ps_hosts or args.worker_hosts:
        ps = args.ps_hosts.split(",")  # parameter servers
        workers = args.worker_hosts.split(",")  # worker servers
        cluster = tf.train.ClusterSpec({"ps": ps, "worker": workers})
        server = tf.train.Server(cluster, job_name=args.job_name, task_index=args.task_index)
        if args.job_name == "ps":
            server.join()
        elif args.job_name == "worker":
            train_worker(cluster, server.target, args.task_index, args.steps)
        return
    # No addresses: the whole cluster in this process, a thread per worker. The chief
    # starts first (a worker's session waits for the chief's initialization).
    # Ctrl-C reaches the main thread only: it sets `stop`, which ends the chief's loop too.
    from tensorweave.local_cluster import start_local_cluster
    cluster, servers = start_local_cluster(jobs={"ps": 1, "worker": 2})
    chief_ready, stop = threading.Event(), threading.Event()

    def chief_worker():
        try:
            train_worker(cluster, servers[1].target, 0, args.steps, chief_ready, stop)
        finally:
            chief_ready.set()  # Also when it failed: the other worker then fails on its own.

    chief = threading.Thread(target=chief_worker, daemon=True)
    chief.start()
    try:
        chief_ready.wait()
        train_worker(cluster, servers[2].target, 1, args.steps, stop=stop)
        chief.join()
    except KeyboardInterrupt:
        stop.set()
        chief.join(timeout=10)
        for server in servers:
            server.stop()
        log("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
