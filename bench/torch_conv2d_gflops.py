"""The PyTorch peer of bench/conv2d_gflops.sh: the same convolution (oneDNN; NCHW and
channels_last both timed, the faster reported) forward, input gradient and weight gradient
(aten::convolution_backward with one output asked for each), and the 1024x1024 matmul
(MKL), under torch.no_grad on torch.set_num_threads(THREADS).
Usage: torch_conv2d_gflops.py THREADS REPS"""
import os
import sys
import time

# Wall time; this process's CPU time with TW_BENCH_CLOCK=cpu (one thread only: steadier than wall
# time on a loaded machine, and the same measure for both sides).
clock = time.process_time if os.environ.get("TW_BENCH_CLOCK") == "cpu" else time.perf_counter

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
import peer_env  # noqa: E402

peer_env.configure(threads)
import torch  # noqa: E402

torch.set_num_threads(threads)
g = torch.Generator().manual_seed(3)
n, hw, c = 8, 56, 64
conv_flop = 2 * n * hw * hw * c * 3 * 3 * c
x0, dy0 = torch.randn(n, c, hw, hw, generator=g), torch.randn(n, c, hw, hw, generator=g)
w0, a = torch.randn(c, c, 3, 3, generator=g), torch.randn(1024, 1024, generator=g)


def conv_ops(x, dy, w):
    def backward(mask):
        return lambda: torch.ops.aten.convolution_backward(dy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                                           mask)
    return {
        "Conv2D": lambda: torch.nn.functional.conv2d(x, w, padding=1),
        "Conv2DBackpropInput": backward([True, False, False]),
        "Conv2DBackpropFilter": backward([False, True, False]),
    }


def time_s(fn):
    fn()
    times = []
    for _ in range(reps):
        start = clock()
        fn()
        times.append(clock() - start)
    return peer_env.median(times)


# The convolutions in both memory formats (oneDNN picks other kernels for channels_last,
# the NHWC that tensorweave runs in); the faster is reported, with the other beside it.
last = torch.channels_last
layouts = {"NCHW": conv_ops(x0, dy0, w0),
           "channels_last": conv_ops(x0.to(memory_format=last), dy0.to(memory_format=last),
                                     w0.to(memory_format=last))}
with torch.no_grad():
    for name in layouts["NCHW"]:
        secs = {layout: time_s(fns[name]) for layout, fns in layouts.items()}
        best = min(secs, key=secs.get)
        other = ", ".join(f"{k} {conv_flop / v / 1e9:.1f}" for k, v in secs.items() if k != best)
        print(f"PyTorch {torch.__version__} {name}, {threads} thread(s): {secs[best] * 1000:.2f} ms, "
              f"{conv_flop / secs[best] / 1e9:.1f} GFLOP/s ({best}; {other})", flush=True)
        print(f"RESULT {name}_gflops={conv_flop / secs[best] / 1e9:.2f}")
    median = time_s(lambda: a @ a)
    print(f"PyTorch {torch.__version__} MatMul 1024^3, {threads} thread(s): {median * 1000:.2f} ms, "
          f"{2 * 1024 ** 3 / median / 1e9:.1f} GFLOP/s", flush=True)
    print(f"RESULT MatMul_gflops={2 * 1024 ** 3 / median / 1e9:.2f}")
