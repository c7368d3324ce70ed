"""The first Ctrl-C stops a training example: every thread and server, exit status 130, no hang."""
import os
import signal
import subprocess
import sys
import time

from conftest import EXAMPLES_DIR, python_env


def test_first_ctrl_c_stops_ps_worker():
    proc = subprocess.Popen([sys.executable, os.path.join(EXAMPLES_DIR, "ps_worker.py"), "--steps", "100000000"],
                            env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        ready = 0
        deadline = time.time() + 60
        while ready < 2 and time.time() < deadline:  # both workers training
            line = proc.stdout.readline()
            ready += "session ready" in line
        assert ready == 2, "the workers did not start"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, out
    assert "interrupted" in out
