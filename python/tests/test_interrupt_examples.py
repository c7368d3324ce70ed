"""The first Ctrl-C stops a training example: every thread and server, exit status 130, no hang."""
import os
import signal
import subprocess
import sys
import time

from conftest import EXAMPLES_DIR, free_port, python_env


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


def _interrupt_after(args, ready_text, timeout=120):
    """Starts an example, sends SIGINT once it printed `ready_text`; (returncode, output)."""
    proc = subprocess.Popen([sys.executable] + args, env=python_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        out = []
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            out.append(line)
            if ready_text in line:
                break
        assert any(ready_text in line for line in out), "".join(out)
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, "".join(out) + rest


def test_first_ctrl_c_stops_data_parallel_exp():
    # Python's own exit for an uncaught KeyboardInterrupt is death by SIGINT (130 in a shell).
    code, out = _interrupt_after([os.path.join(EXAMPLES_DIR, "data_parallel_exp.py")], "step 100 ")
    assert code in (130, -signal.SIGINT), out
    assert "KeyboardInterrupt" in out and "final loss" not in out


def test_first_ctrl_c_stops_create_worker():
    port = free_port()
    code, out = _interrupt_after([os.path.join(EXAMPLES_DIR, "create_worker.py"), "0",
                                  "local|localhost:%d;localhost:%d" % (port, free_port())], "Starting server #0")
    assert code == 0, out
    assert "Stopped server #0" in out
