"""TensorFlow's side of bench/executor_overhead: the same graphs in tf.compat.v1 (a chain
of NODES scalar float32 Adds, x = x + 1; NODES independent adds of two Consts grouped
under one NoOp), one Session.run each, median microseconds per add. Optimizers off
(tf_peer.config(optimize=False)): they would fold the constant adds away. Tries the
thread settings and prints each; RESULT is the fastest. XLA is not tried: it would
compile the 10,000 adds into one kernel, which is not the executor's work.
Usage: tf_executor_overhead.py NODES REPEATS"""
import sys
import time

import peer_env

peer_env.configure(1)
import tf_peer  # noqa: E402

v1 = tf_peer.v1
nodes = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 51


def median_us(run):
    run()  # Warm-up: the executor for this signature is built here.
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e6 / nodes)
    return peer_env.median(times)


def measure(intra, inter):
    chain_graph = v1.Graph()
    with chain_graph.as_default():
        one = v1.constant(1.0)
        x = v1.constant(0.0)
        for _ in range(nodes):
            x = x + one
    with v1.Session(graph=chain_graph, config=tf_peer.config(intra, inter, optimize=False)) as sess:
        run = sess.make_callable(x)
        assert run() == nodes, run()
        chain = median_us(run)
    wide_graph = v1.Graph()
    with wide_graph.as_default():
        adds = [v1.add(v1.constant(1.0), v1.constant(2.0)) for _ in range(nodes)]
        group = v1.group(*adds)
    with v1.Session(graph=wide_graph, config=tf_peer.config(intra, inter, optimize=False)) as sess:
        wide = median_us(sess.make_callable(group))
    return chain, wide


results = {}
for intra, inter in ((1, 1), (1, 2), (2, 2)):
    chain, wide = measure(intra, inter)
    results[(intra, inter)] = (chain, wide)
    print(f"TensorFlow {tf_peer.tf.__version__} Session ({tf_peer.describe(intra, inter, False)}): "
          f"chain {chain:.3f} us/add, independent {wide:.3f} us/add", flush=True)
best_chain = min(results, key=lambda k: results[k][0])
best_wide = min(results, key=lambda k: results[k][1])
print(f"fastest: chain with {tf_peer.describe(*best_chain, False)}, independent with {tf_peer.describe(*best_wide, False)}")
print(f"RESULT chain_us_per_node={results[best_chain][0]:.4f} wide_us_per_node={results[best_wide][1]:.4f}")
