"""TensorFlow's side of the benchmarks (tf.compat.v1 graph mode and Session): session
settings, and clusters of real TensorFlow gRPC servers (tf.distribute.Server), each in a
process of its own (bench/tf_server.py), on free loopback ports, always stopped.

Import after peer_env.configure(). XLA's auto-clustering on the CPU needs
--tf_xla_cpu_global_jit as well as the session's global_jit_level; the flag is set here
for the whole process and only sessions asking for XLA use it.
"""
import contextlib
import os
import socket
import subprocess
import sys
import time

os.environ["TF_XLA_FLAGS"] = (os.environ.get("TF_XLA_FLAGS", "") + " --tf_xla_cpu_global_jit").strip()
import tensorflow as tf  # noqa: E402

import peer_env  # noqa: E402

v1 = tf.compat.v1
v1.disable_eager_execution()
v1.logging.set_verbosity(v1.logging.ERROR)  # Deprecation notices (SyncReplicasOptimizer, QueueRunner)
SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_server.py")


def config(intra=1, inter=1, xla=False, optimize=True):
    """A session ConfigProto. optimize=False turns off what would delete the measured work
    rather than do it: Grappler (its constant folding and arithmetic rewrites) and the
    graph optimizer's constant folding (which also replaces Size/Shape of known shapes by
    constants); tensorweave folds nothing, so without this TF would time a fetch of a
    precomputed constant."""
    c = v1.ConfigProto(intra_op_parallelism_threads=intra, inter_op_parallelism_threads=inter)
    if xla:
        c.graph_options.optimizer_options.global_jit_level = v1.OptimizerOptions.ON_1
    if not optimize:
        c.graph_options.rewrite_options.disable_meta_optimizer = True
        c.graph_options.optimizer_options.opt_level = v1.OptimizerOptions.L0
        c.graph_options.optimizer_options.do_constant_folding = False
    return c


def describe(intra, inter, xla):
    return f"intra {intra}, inter {inter}, XLA {'on' if xla else 'off'}"


def _wait_for_port(port, proc, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"a TensorFlow server exited with code {proc.returncode} before listening")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"a TensorFlow server did not listen on port {port} within {timeout} s")


@contextlib.contextmanager
def cluster(jobs, intra=1, inter=1):
    """Starts {job: task count} as TensorFlow server processes; yields the ClusterSpec dict
    ({job: ["localhost:port", ...]}). The servers are killed on leaving, whatever happened
    (and each also exits by itself when this process is gone)."""
    ports = iter(peer_env.free_ports(sum(jobs.values())))
    spec = {job: [f"localhost:{next(ports)}" for _ in range(n)] for job, n in jobs.items()}
    procs = []
    try:
        for job, addresses in spec.items():
            for task, address in enumerate(addresses):
                proc = subprocess.Popen([sys.executable, SERVER, repr(spec), job, str(task), str(intra), str(inter)])
                procs.append(proc)
                _wait_for_port(int(address.rsplit(":", 1)[1]), proc)
        yield spec
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()
