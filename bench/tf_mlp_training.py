"""TensorFlow's side of bench/mlp_training: the same 784 -> 256 -> 10 MLP (ReLU, softmax
cross-entropy, mean), batch 128 fed each step, float32, Adam 0.001, in tf.compat.v1 graph
mode and a Session. Tries the thread settings and XLA's auto-clustering and prints each
median step time; RESULT is the fastest.
Usage: tf_mlp_training.py THREADS STEPS"""
import sys

import peer_env

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 300
peer_env.configure(threads)
import numpy as np  # noqa: E402

import tf_peer  # noqa: E402

v1 = tf_peer.v1
batch, n_in, hidden, n_out = 128, 784, 256, 10
rng = np.random.RandomState(5)
x_data = rng.uniform(size=(batch, n_in)).astype(np.float32)
labels_data = np.eye(n_out, dtype=np.float32)[[i % n_out for i in range(batch)]]


def measure(intra, inter, xla):
    graph = v1.Graph()
    with graph.as_default():
        v1.set_random_seed(1)
        x = v1.placeholder(v1.float32, [batch, n_in])
        labels = v1.placeholder(v1.float32, [batch, n_out])
        w1 = v1.Variable(v1.truncated_normal([n_in, hidden], stddev=0.05))
        b1 = v1.Variable(v1.zeros([hidden]))
        w2 = v1.Variable(v1.truncated_normal([hidden, n_out], stddev=0.05))
        b2 = v1.Variable(v1.zeros([n_out]))
        logits = v1.matmul(v1.nn.relu(v1.matmul(x, w1) + b1), w2) + b2
        loss = v1.reduce_mean(v1.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
        train = v1.train.AdamOptimizer(0.001).minimize(loss)
        init = v1.global_variables_initializer()
    with v1.Session(graph=graph, config=tf_peer.config(intra, inter, xla)) as sess:
        sess.run(init)
        step = sess.make_callable(train, feed_list=[x, labels])
        # 20 warm-up steps, as ours: prepare (and compile, with XLA) and settle.
        step_ms = peer_env.median_step_ms(lambda: step(x_data, labels_data), 20, steps)
        final = sess.run(loss, {x: x_data, labels: labels_data})
    return step_ms, final


results = {}
for inter in sorted({1, threads}):
    for xla in (False, True):
        ms, final = measure(threads, inter, xla)
        results[(threads, inter, xla)] = ms
        print(f"TensorFlow {tf_peer.tf.__version__} MLP 784-256-10 batch 128 Adam, {tf_peer.describe(threads, inter, xla)}: "
              f"{ms:.3f} ms/step median ({1000 / ms:.0f} steps/s), loss {final:.4f}", flush=True)
best = min(results, key=results.get)
print(f"fastest: {tf_peer.describe(*best)}")
print(f"RESULT ms_per_step={results[best]:.4f}")
