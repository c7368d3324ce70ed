"""The PyTorch peer of bench/depthwise_conv.sh: the same depthwise convolution (groups =
channels) forward, input gradient and weight gradient (aten::convolution_backward with one
output asked for each), in NCHW and in channels_last, the faster reported, under
torch.no_grad on torch.set_num_threads(THREADS). Usage: torch_depthwise_conv.py THREADS REPS"""
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
flop = 2 * n * hw * hw * c * 3 * 3
x0, dy0 = torch.randn(n, c, hw, hw, generator=g), torch.randn(n, c, hw, hw, generator=g)
w0 = torch.randn(c, 1, 3, 3, generator=g)


def ops(x, dy, w):
    def backward(mask):
        return lambda: torch.ops.aten.convolution_backward(dy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], c,
                                                           mask)
    return {
        "DepthwiseConv2dNative": lambda: torch.nn.functional.conv2d(x, w, padding=1, groups=c),
        "DepthwiseConv2dNativeBackpropInput": backward([True, False, False]),
        "DepthwiseConv2dNativeBackpropFilter": backward([False, True, False]),
    }


def time_ms(fn):
    fn()
    times = []
    for _ in range(reps):
        start = clock()
        fn()
        times.append(clock() - start)
    return peer_env.median(times) * 1000


# Both memory formats (PyTorch picks other kernels for channels_last); the faster reported.
last = torch.channels_last
layouts = {"NCHW": ops(x0, dy0, w0),
           "channels_last": ops(x0.to(memory_format=last), dy0.to(memory_format=last), w0.to(memory_format=last))}
with torch.no_grad():
    for name in layouts["NCHW"]:
        ms = {layout: time_ms(fns[name]) for layout, fns in layouts.items()}
        best = min(ms, key=ms.get)
        others = ", ".join(f"{k} {v:.2f} ms" for k, v in ms.items() if k != best)
        print(f"PyTorch {torch.__version__} {name}, {threads} thread(s): {ms[best]:.2f} ms, "
              f"{flop / ms[best] / 1e6:.2f} GFLOP/s ({best}; {others})", flush=True)
