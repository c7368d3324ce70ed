"""Tensorweave tasks of any jobs as processes (`python3 -m tensorweave.server`), for the
mixed-cluster tests: conftest's ServerProcesses starts tasks 0..n-1 of one job."""
import signal
import subprocess

from conftest import PYTHON, python_env


class TensorweaveTasks:
    """One server process per (job, task) in `tasks`, each of cluster `spec`; stop() ends them."""

    def __init__(self, spec, tasks, flags=()):
        self.procs = []
        try:
            for job, task in tasks:
                proc = subprocess.Popen([PYTHON, "-m", "tensorweave.server", "--cluster_spec=" + spec,
                                         "--job_name=" + job, "--task_index=%d" % task] + list(flags),
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=python_env())
                self.procs.append(proc)
                line = proc.stdout.readline()  # Printed once the task serves.
                assert line.startswith("Started server /job:%s/task:%d" % (job, task)), line + proc.stderr.read()
        except BaseException:
            self.stop()
            raise

    def stop(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
            try:
                proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
