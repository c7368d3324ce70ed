"""Headless Chromium for the tests that look at rendered pages (TensorBoard's dashboard,
`tw board`'s HTML): the DOM as rendered, and screenshots."""
import os
import shutil
import signal
import subprocess
import tempfile

import pytest

from tf_peer import tf_env

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]


def require_chromium(test_name):
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.skip(f"{test_name} needs chromium (scripts/setup.sh installs it for the test suite)")
    return binary


def run_chromium(flags, timeout, attempts=2):
    """Runs headless Chromium (`flags` start with the binary) without our sanitizer runtime (the
    ASan suite preloads it into our python; Chromium hung under it), again on a fresh profile if
    it hangs all the same. The whole process group is killed on a timeout, so no renderer
    outlives the test. Returns its stdout."""
    for attempt in range(attempts):
        profile = tempfile.mkdtemp(prefix="chromium-profile-")
        proc = subprocess.Popen(flags + [f"--user-data-dir={profile}"], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, start_new_session=True, env=tf_env())
        try:
            return proc.communicate(timeout=timeout)[0].decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            if attempt == attempts - 1:
                raise
        finally:
            shutil.rmtree(profile, ignore_errors=True)
