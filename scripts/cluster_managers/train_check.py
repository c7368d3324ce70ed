"""The training client of scripts/slurm_test.sh and scripts/mpi_test.sh.

Trains a linear regression through a cluster of ps:1,worker:2 started by a cluster manager:
the variables on the ps, each worker computing the gradient of half of every batch, the ps
applying their average (in-graph data parallelism). Then trains the same graph without
devices in this process and checks that both give the same variables (1e-5 relative) and
that they fit the data's weights (1e-2). Prints one line per check; exits 1 on a mismatch.

usage: /usr/bin/python3 scripts/cluster_managers/train_check.py grpc://HOST:PORT [STEPS]
"""
import sys

import numpy as np

import tensorweave as tf

TRUE_W = np.array([[1.5], [-2.0], [0.5], [3.0]], np.float32)
TRUE_B = 0.25


def train(target, steps):
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (64, 4)).astype(np.float32)
    y = x @ TRUE_W + TRUE_B
    distributed = target is not None

    def on(device):
        return tf.device(device if distributed else None)

    graph = tf.Graph()
    with graph.as_default():
        with on("/job:ps/task:0"):
            w = tf.Variable(tf.zeros([4, 1]), name="w")
            b = tf.Variable(tf.zeros([1]), name="b")
        tower_grads = []
        for i in range(2):
            with on("/job:worker/task:%d" % i):
                xs, ys = tf.constant(x[i * 32:(i + 1) * 32]), tf.constant(y[i * 32:(i + 1) * 32])
                loss = tf.reduce_mean(tf.square(tf.matmul(xs, w) + b - ys))
                tower_grads.append(tf.gradients(loss, [w, b]))
        with on("/job:ps/task:0"):
            averaged = [(g0 + g1) / 2.0 for g0, g1 in zip(*tower_grads)]
            step = tf.train.GradientDescentOptimizer(0.2).apply_gradients(list(zip(averaged, [w, b])))
        with tf.Session(target or "") as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(step)
            return sess.run([w, b])


def main(argv):
    if len(argv) not in (2, 3) or not argv[1].startswith("grpc://"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    steps = int(argv[2]) if len(argv) == 3 else 200
    w, b = train(argv[1], steps)
    local_w, local_b = train(None, steps)
    ok = True
    same = np.allclose(w, local_w, rtol=1e-5, atol=1e-6) and np.allclose(b, local_b, rtol=1e-5, atol=1e-6)
    print("%s: the cluster's variables equal the single-process run's after %d steps (max difference %.3g)"
          % ("PASS" if same else "FAIL", steps, max(np.abs(w - local_w).max(), np.abs(b - local_b).max())))
    fits = np.allclose(w, TRUE_W, atol=1e-2) and abs(float(b[0]) - TRUE_B) < 1e-2
    print("%s: the weights fit the data's (w %s, b %.4f)" % ("PASS" if fits else "FAIL", w.ravel().round(4), b[0]))
    return 0 if same and fits else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
