"""`tw server` processes of any jobs for the mixed-cluster tests (conftest's ServerProcesses
starts tasks 0..n-1 of one job through python3 -m tensorweave.server)."""
import os
import signal
import socket
import subprocess
import time

from tf_peer import BUILD_DIR

TW = os.path.join(BUILD_DIR, "tools", "tw")


def _serving(address):
    host, port = address.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except OSError:
        return False


class TensorweaveTasks:
    """One `tw server` per (job, task) in `tasks`, each of cluster `spec` ("job|host:port;...,job2|...")
    at `addresses[(job, task)]`; stop() ends them (and they end with this process)."""

    def __init__(self, spec, addresses, flags=()):
        assert os.path.exists(TW), "build the tw tool first: " + TW
        self.procs = []
        try:
            for (job, task), address in addresses.items():
                proc = subprocess.Popen([TW, "server", "--cluster_spec=" + spec, "--job_name=" + job,
                                         "--task_index=%d" % task, "--parent_pid=%d" % os.getpid()] + list(flags),
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                self.procs.append(proc)
                deadline = time.monotonic() + 60
                while not _serving(address):
                    assert proc.poll() is None, "tw server /job:%s/task:%d exited: %s" % (job, task, proc.stderr.read())
                    assert time.monotonic() < deadline, "tw server /job:%s/task:%d is not serving" % (job, task)
                    time.sleep(0.05)
        except BaseException:
            self.stop()
            raise

    def stop(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
