"""The PyTorch peer of bench/conv2d_gflops.sh: the same convolution (NCHW, its layout;
oneDNN) forward, input gradient and weight gradient (aten::convolution_backward with one
output asked for each), and the 1024x1024 matmul (MKL), under torch.no_grad on
torch.set_num_threads(THREADS). Usage: torch_conv2d_gflops.py THREADS REPS"""
import sys
import time

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
import peer_env  # noqa: E402

peer_env.configure(threads)
import torch  # noqa: E402

torch.set_num_threads(threads)
g = torch.Generator().manual_seed(3)
n, hw, c = 8, 56, 64
conv_flop = 2 * n * hw * hw * c * 3 * 3 * c
x, dy = torch.randn(n, c, hw, hw, generator=g), torch.randn(n, c, hw, hw, generator=g)
w, a = torch.randn(c, c, 3, 3, generator=g), torch.randn(1024, 1024, generator=g)


def backward(mask):
    return lambda: torch.ops.aten.convolution_backward(dy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, mask)


ops = {
    "Conv2D": (lambda: torch.nn.functional.conv2d(x, w, padding=1), conv_flop),
    "Conv2DBackpropInput": (backward([True, False, False]), conv_flop),
    "Conv2DBackpropFilter": (backward([False, True, False]), conv_flop),
    "MatMul 1024^3": (lambda: a @ a, 2 * 1024 ** 3),
}
with torch.no_grad():
    for name, (fn, flop) in ops.items():
        fn()
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        median = peer_env.median(times)
        print(f"PyTorch {torch.__version__} {name}, {threads} thread(s): {median * 1000:.2f} ms, "
              f"{flop / median / 1e9:.1f} GFLOP/s", flush=True)
        print(f"RESULT {name.split()[0]}_gflops={flop / median / 1e9:.2f}")
