"""The peer of bench/executor_overhead: PyTorch eager doing the same 10,000 scalar adds,
as a chain and independently. Prints the median microseconds per add."""
import os
import statistics
import sys
import time

import peer_env  # noqa: E402

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
    return statistics.median(times)


assert chain().item() == nodes
print(f"RESULT chain_us_per_node={median_us(chain):.4f} wide_us_per_node={median_us(wide):.4f}")
