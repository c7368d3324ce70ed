"""The peer of bench/allreduce.cc: torch.distributed.all_reduce (gloo) of float32 tensors
between WORKERS spawned processes on loopback; rank 0 prints per size the median latency
and bus bandwidth as the same RESULT line.
    torch_allreduce.py WORKERS BYTES[,BYTES...] ITERS"""
import sys
import time

import peer_env

peer_env.configure(1)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402


def worker(rank, n, port, sizes, iters):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=n)
    for nbytes in sizes:
        t = torch.ones(nbytes // 4, dtype=torch.float32)
        dist.all_reduce(t)
        assert bool((t == n).all()), "wrong sum"
        t.zero_()
        for _ in range(3):
            dist.all_reduce(t)
        times = []
        for _ in range(iters):
            start = time.perf_counter()
            dist.all_reduce(t)
            times.append(time.perf_counter() - start)
        if rank == 0:
            seconds = peer_env.median(times)
            print("RESULT bytes=%d ranks=%d us=%.1f busbw_gbs=%.3f" % (
                nbytes, n, seconds * 1e6, 2.0 * (n - 1) / n * nbytes / seconds / 1e9), flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    n, sizes, iters = int(sys.argv[1]), [int(b) for b in sys.argv[2].split(",")], int(sys.argv[3])
    port = peer_env.free_ports(1)[0]
    mp.spawn(worker, args=(n, port, sizes, iters), nprocs=n, join=True)
