"""TensorFlow's side of build/bench/distributed_step and distributed_transfer: the same
graphs on two real TensorFlow gRPC servers (tf.distribute.Server processes, job "local",
tasks 0 and 1, on loopback), driven by a tf.compat.v1 Session through task 0.
  step:     x = Const on task 1, x + 1 on task 0, fetched; also x alone (median us)
  transfer: a 64 MiB float32 variable on task 1, read there; on task 0 the first element
            of identity(read), so the bytes cross and 4 reach the client (median GB/s).
            (tensorweave's side takes size(identity(read)); TensorFlow's workers replace
            size() of a known shape by a constant even with the optimizers off, and then
            nothing crosses: measured at ~0.5 ms a "transfer".)
Optimizers off (tf_peer.config(optimize=False)): constant folding would otherwise compute
x + 1 before the step. Tries the servers' and the session's thread settings; RESULT is the fastest.
Usage: tf_distributed.py step STEPS | transfer REPEATS"""
import sys
import time

import peer_env

peer_env.configure(1)
import tf_peer  # noqa: E402

v1 = tf_peer.v1
mode = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else (2000 if mode == "step" else 15)
big_bytes = 64 << 20


def times(run, count, warmup):
    for _ in range(warmup):
        run()
    out = []
    for _ in range(count):
        start = time.perf_counter()
        run()
        out.append(time.perf_counter() - start)
    return out


def step(spec, threads):
    graph = v1.Graph()
    with graph.as_default():
        with v1.device("/job:local/task:1"):
            x = v1.constant(1.0)
        with v1.device("/job:local/task:0"):
            y = x + 1.0
    with v1.Session("grpc://" + spec["local"][0], graph=graph, config=tf_peer.config(threads, threads, optimize=False)) as sess:
        run_y, run_x = sess.make_callable(y), sess.make_callable(x)
        assert run_y() == 2.0
        step_us = 1e6 * peer_env.median(times(run_y, n, 50))
        fetch_us = 1e6 * peer_env.median(times(run_x, n, 50))
    return step_us, fetch_us


def transfer(spec, threads):
    graph = v1.Graph()
    with graph.as_default():
        with v1.device("/job:local/task:1"):
            big = v1.Variable(v1.fill([big_bytes // 4], 1.0))
            read = big.read_value()
        with v1.device("/job:local/task:0"):
            consumed = v1.identity(read)[0]
        init = v1.global_variables_initializer()
    with v1.Session("grpc://" + spec["local"][0], graph=graph, config=tf_peer.config(threads, threads, optimize=False)) as sess:
        sess.run(init)
        run = sess.make_callable(consumed)
        assert run() == 1.0
        return big_bytes / peer_env.median(times(run, n, 1)) / 1e9


results = {}
for threads in (1, 2):
    with tf_peer.cluster({"local": 2}, threads, threads) as spec:
        if mode == "step":
            step_us, fetch_us = step(spec, threads)
            results[threads] = step_us
            print(f"TensorFlow {tf_peer.tf.__version__}, 2 server processes ({tf_peer.describe(threads, threads, False)}): "
                  f"2-task step {step_us:.1f} us, fetch of x from task 1 {fetch_us:.1f} us (medians of {n})", flush=True)
        else:
            gbps = transfer(spec, threads)
            results[threads] = -gbps
            print(f"TensorFlow {tf_peer.tf.__version__}, 2 server processes ({tf_peer.describe(threads, threads, False)}): "
                  f"64 MiB task 1 -> task 0 {gbps:.2f} GB/s (median of {n})", flush=True)
best = min(results, key=results.get)
print(f"fastest: {tf_peer.describe(best, best, False)}")
print(f"RESULT step_us={results[best]:.2f}" if mode == "step" else f"RESULT gb_per_s={-results[best]:.3f}")
