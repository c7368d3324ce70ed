"""What the PyTorch DDP peers share: WORKERS spawned processes on a free loopback port, each
timing REPEATS runs of STEPS steps after WARMUP (rank 0 reports examples/s per run), the
runs' rates printed, and the median returned. Import after peer_env.configure()."""
import socket
import statistics
import sys
import time

import torch.distributed as dist
import torch.multiprocessing as mp


def time_steps(step, rank, examples_per_step, warmup, repeats, steps, results):
    """Runs `step` WARMUP times, then REPEATS timed runs of STEPS steps (each started together
    on every rank); rank 0 puts each run's examples/s (all ranks together) on `results`."""
    for _ in range(warmup):
        step()
    for _ in range(repeats):
        dist.barrier()
        start = time.perf_counter()
        for _ in range(steps):
            step()
        if rank == 0:
            results.put(steps * examples_per_step / (time.perf_counter() - start))
    dist.destroy_process_group()


def run(train, workers, repeats):
    """Starts train(rank, port, results) in `workers` spawned processes; the median rate."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=train, args=(rank, port, results)) for rank in range(workers)]
    for p in procs:
        p.start()
    rates = [results.get() for _ in range(repeats)]
    for p in procs:
        p.join()
        if p.exitcode != 0:
            sys.exit(f"a DDP worker failed (exit code {p.exitcode})")
    for r, rate in enumerate(rates):
        print(f"repeat {r}: {rate:.0f} examples/s")
    return statistics.median(rates)
