"""Shared by the Python peers (current PyTorch and TensorFlow, from build/peer-venv that
bench/install_peer.sh makes): thread settings, medians, step timing and free loopback ports.

PyPI's torch multiplies through MKL and oneDNN on OpenMP threads; TensorFlow through
oneDNN and Eigen on its own pools (sized by ConfigProto). Both read the variables below
when they load, so configure() runs before either is imported.
"""
import os
import socket
import statistics
import time

# Wall time; this process's CPU time with TW_BENCH_CLOCK=cpu (one thread only: steadier than wall
# time on a loaded machine, and the same measure for both sides).
clock = time.process_time if os.environ.get("TW_BENCH_CLOCK") == "cpu" else time.perf_counter


def configure(threads):
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def median(values):
    return statistics.median(values)


def median_step_ms(step, warmup, steps):
    """Runs step() `warmup` times (warm-up, compilation), then `steps` timed times; the
    median time of one step in milliseconds."""
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        start = clock()
        step()
        times.append((clock() - start) * 1000)
    return statistics.median(times)


def free_ports(n):
    """n loopback ports free now (bound together, so distinct)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()
