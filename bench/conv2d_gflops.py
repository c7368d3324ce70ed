"""tensorweave's side of bench/conv2d_gflops.sh: Conv2D and its two backprops alone (3x3,
64 -> 64 channels, 56x56, SAME, batch 8, NHWC, float32) and a 1024x1024 MatMul (the GEMM
they run on, so the limit), each run as a session target on variables, THREADS intra/inter
threads; GFLOP/s from the median time (a convolution is 2*N*H*W*Cout*3*3*Cin FLOP).
Usage: conv2d_gflops.py THREADS REPS"""
import os
import sys
import time

# Wall time; this process's CPU time with TW_BENCH_CLOCK=cpu (one thread only: steadier than wall
# time on a loaded machine, and the same measure for both sides).
clock = time.process_time if os.environ.get("TW_BENCH_CLOCK") == "cpu" else time.perf_counter

import numpy as np

import tensorweave as tf

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
rng = np.random.default_rng(3)
n, hw, c = 8, 56, 64
conv_flop = 2 * n * hw * hw * c * 3 * 3 * c
x = tf.Variable(rng.normal(size=(n, hw, hw, c)).astype(np.float32))
w = tf.Variable(rng.normal(size=(3, 3, c, c)).astype(np.float32))
dy = tf.Variable(rng.normal(size=(n, hw, hw, c)).astype(np.float32))
a = tf.Variable(rng.normal(size=(1024, 1024)).astype(np.float32))
ops = {
    "Conv2D": (tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), conv_flop),
    "Conv2DBackpropInput": (tf.nn.conv2d_backprop_input([n, hw, hw, c], w, dy, [1, 1, 1, 1], "SAME"), conv_flop),
    "Conv2DBackpropFilter": (tf.nn.conv2d_backprop_filter(x, [3, 3, c, c], dy, [1, 1, 1, 1], "SAME"), conv_flop),
    "MatMul 1024^3": (tf.matmul(a, a), 2 * 1024 ** 3),
}
config = tf.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    for name, (out, flop) in ops.items():
        sess.run(out.op)  # warm-up
        times = []
        for _ in range(reps):
            start = clock()
            sess.run(out.op)
            times.append(clock() - start)
        median = float(np.median(times))
        print(f"tensorweave {name}, {threads} thread(s): {median * 1000:.2f} ms, {flop / median / 1e9:.1f} GFLOP/s",
              flush=True)
        print(f"RESULT {name.split()[0]}_gflops={flop / median / 1e9:.2f}")
