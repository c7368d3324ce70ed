"""Per-iteration overhead of an empty while loop (i = i + 1 while i < n, n fed), 100,000
iterations by default: tensorweave's tf.while_loop, TensorFlow's v1 while_loop (control flow
v1, the same graph structure) and, as issue 18 asks, a Python for loop doing one PyTorch add.
    <python> bench/while_loop_overhead.py tensorweave|tensorflow|torch [iterations] [repeats]
Prints one RESULT line: us_per_iteration (median of `repeats` runs after a warm-up)."""
import statistics
import sys
import time


def tf1_loop(tf, tf1, n_value, repeats):
    n = tf1.placeholder(tf.int32, [])
    out = tf1.while_loop(lambda i: i < n, lambda i: i + 1, [tf.constant(0)])
    with tf1.Session() as sess:
        sess.run(out, {n: 10})
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            assert sess.run(out, {n: n_value}) == n_value
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    kind = sys.argv[1]
    n_value = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    if kind == "tensorweave":
        import tensorweave as tf
        seconds = tf1_loop(tf, tf, n_value, repeats)
    elif kind == "tensorflow":
        import tensorflow as tf
        tf.compat.v1.disable_eager_execution()
        tf.compat.v1.disable_control_flow_v2()
        seconds = tf1_loop(tf, tf.compat.v1, n_value, repeats)
    else:
        import torch
        torch.set_num_threads(1)
        times = []
        for _ in range(repeats + 1):
            x = torch.zeros(())
            start = time.perf_counter()
            for _ in range(n_value):
                x = x + 1
            times.append(time.perf_counter() - start)
        seconds = statistics.median(times[1:])
    us = seconds / n_value * 1e6
    print(f"{kind} empty loop, {n_value} iterations: {us:.3f} us/iteration (median of {repeats})")
    print(f"RESULT us_per_iteration={us:.4f}")


if __name__ == "__main__":
    main()
