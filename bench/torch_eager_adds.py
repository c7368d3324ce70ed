"""The PyTorch peer of bench/executor_overhead: current PyTorch eager (build/peer-venv),
one thread, doing the same 10,000 scalar adds from Python, as a chain and independently.
Prints the median microseconds per add. torch.compile is not tried: it would fuse the
adds into one kernel, which is not the same work.
Usage: torch_eager_adds.py NODES REPEATS"""
import sys
import time

import peer_env

peer_env.configure(1)
import torch  # noqa: E402

nodes = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 51
torch.set_num_threads(1)
one = torch.tensor(1.0)
a, b = torch.tensor(1.0), torch.tensor(2.0)


def chain():
    x = torch.tensor(0.0)
    for _ in range(nodes):
        x = x + one
    return x


def wide():
    return [a + b for _ in range(nodes)]


def median_us(fn):
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e6 / nodes)
    return peer_env.median(times)


assert chain().item() == nodes
chain_us, wide_us = median_us(chain), median_us(wide)
print(f"PyTorch {torch.__version__} eager: chain {chain_us:.3f} us/add, independent {wide_us:.3f} us/add")
print(f"RESULT chain_us_per_node={chain_us:.4f} wide_us_per_node={wide_us:.4f}")
