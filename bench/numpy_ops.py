"""Everyday ops against NumPy in one process and one run: unary elementwise ops (exp, tanh,
sqrt) and reductions (sum, max) on 1M and 16M float32 elements, and a batch of 32 256x256
float32 Cholesky factorizations and inverses (numpy.linalg). tensorweave runs each op on a
variable already in memory (the op run as a target, its result not copied out; a reduction's
scalar fetched) in a session with 1 thread and in one with all threads; NumPy allocates its
result as tensorweave does.
    /usr/bin/python3 bench/numpy_ops.py [repeats]   (PYTHONPATH=build/python)
Prints one line per case: medians in ms and the ratios (above 1: tensorweave is faster), then
RESULT lines."""
import os
import statistics
import sys
import time

import numpy as np

import tensorweave as tf


def median_ms(fn, repeats):
    fn()  # warm-up (kernel creation, first allocation)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def cases(n):
    return {f"exp {n}": (tf.exp, np.exp), f"tanh {n}": (tf.tanh, np.tanh), f"sqrt {n}": (tf.sqrt, np.sqrt),
            f"sum {n}": (tf.reduce_sum, np.sum), f"max {n}": (tf.reduce_max, np.max)}


def tw_sessions():
    one = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    return {"1 thread": one, "all threads": tf.ConfigProto()}


def run_elementwise(repeats):
    rows = []
    rng = np.random.default_rng(0)
    for n in (1 << 20, 1 << 24):
        x = rng.uniform(0.1, 4.0, n).astype(np.float32)
        label = "1M" if n == 1 << 20 else "16M"
        for name, (tw_fn, np_fn) in cases(label).items():
            times = {"numpy": median_ms(lambda: np_fn(x), repeats)}
            for kind, config in tw_sessions().items():
                with tf.Graph().as_default():
                    v = tf.Variable(x)
                    y = tw_fn(v)
                    target = y if y.shape.ndims == 0 else y.op  # elementwise: run as a target, nothing copied out
                    with tf.Session(config=config) as sess:
                        sess.run(v.initializer)
                        got = sess.run(y)
                        want = np_fn(x)
                        assert np.allclose(got, want, rtol=1e-4 if n > 1 << 20 or name.startswith("sum") else 1e-5), name
                        times[kind] = median_ms(lambda: sess.run(target), repeats)
            rows.append((f"{name} float32", times))
    return rows


def run_linalg(repeats):
    rows = []
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (32, 256, 256)).astype(np.float32)
    spd = (a @ np.swapaxes(a, -1, -2) + 256 * np.eye(256, dtype=np.float32)).astype(np.float32)
    for name, tw_fn, np_fn in (("cholesky 32x256x256", tf.cholesky, np.linalg.cholesky),
                               ("inverse 32x256x256", tf.matrix_inverse, np.linalg.inv)):
        times = {"numpy": median_ms(lambda: np_fn(spd), repeats)}
        for kind, config in tw_sessions().items():
            with tf.Graph().as_default():
                v = tf.Variable(spd)
                y = tw_fn(v)
                with tf.Session(config=config) as sess:
                    sess.run(v.initializer)
                    np.testing.assert_allclose(sess.run(y), np_fn(spd), rtol=1e-3, atol=1e-4)
                    times[kind] = median_ms(lambda: sess.run(y.op), repeats)
        rows.append((f"{name} float32", times))
    return rows


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    print(f"load average {os.getloadavg()}; NumPy {np.__version__}; {os.cpu_count()} CPUs; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    for name, t in run_elementwise(repeats) + run_linalg(max(5, repeats // 3)):
        print(f"{name:32s} numpy {t['numpy']:8.3f} ms | tensorweave 1 thread {t['1 thread']:8.3f} ms "
              f"({t['numpy'] / t['1 thread']:.2f}x) | all threads {t['all threads']:8.3f} ms "
              f"({t['numpy'] / t['all threads']:.2f}x)")
        key = name.replace(" ", "_")
        print(f"RESULT case={key} numpy_ms={t['numpy']:.4f} tw1_ms={t['1 thread']:.4f} twall_ms={t['all threads']:.4f}")
    print(f"load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()
