"""DepthwiseConv2dNative and its two backprops alone (3x3, 64 channels, multiplier 1,
56x56, SAME, batch 8, NHWC, float32; MobileNet's second block), each a session target on
variables, THREADS intra/inter threads; median time and GFLOP/s (2*N*H*W*C*M*3*3 FLOP).
Usage (tensorweave's python module on PYTHONPATH): depthwise_conv.py THREADS REPS"""
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
flop = 2 * n * hw * hw * c * 3 * 3
x = tf.Variable(rng.normal(size=(n, hw, hw, c)).astype(np.float32))
w = tf.Variable(rng.normal(size=(3, 3, c, 1)).astype(np.float32))
dy = tf.Variable(rng.normal(size=(n, hw, hw, c)).astype(np.float32))
strides = [1, 1, 1, 1]
ops = {
    "DepthwiseConv2dNative": tf.nn.depthwise_conv2d_native(x, w, strides, "SAME"),
    "DepthwiseConv2dNativeBackpropInput": tf.nn.depthwise_conv2d_native_backprop_input(
        [n, hw, hw, c], w, dy, strides, "SAME"),
    "DepthwiseConv2dNativeBackpropFilter": tf.nn.depthwise_conv2d_native_backprop_filter(
        x, [3, 3, c, 1], dy, strides, "SAME"),
}
config = tf.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    for name, out in ops.items():
        sess.run(out.op)  # warm-up
        times = []
        for _ in range(reps):
            start = clock()
            sess.run(out.op)
            times.append(clock() - start)
        median = float(np.median(times))
        print(f"tensorweave {name}, {threads} thread(s): {median * 1000:.2f} ms, {flop / median / 1e9:.2f} GFLOP/s",
              flush=True)
