"""Real TensorFlow for the tests that ask it for the right answer.

TensorFlow lives in its own virtual environment (it brings a NumPy our module cannot share
a process with), so tests run it as a subprocess: `tensorflow_python()` is its interpreter,
TW_TF_PYTHON if set, else the suite's venv under the build tree. Without it a test is
skipped with the reason, except in CI (CI=true), where it fails."""
import os
import subprocess

import pytest

import tensorweave

BUILD_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(tensorweave.__file__))))
TF_SIDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_side")


def tensorflow_python():
    candidates = [os.environ.get("TW_TF_PYTHON"), os.path.join(BUILD_DIR, "tf-venv", "bin", "python")]
    for path in candidates:
        if path and os.path.exists(path):
            return path
    return None


def require_tensorflow(test_name):
    python = tensorflow_python()
    if python is None:
        reason = (f"{test_name} needs TensorFlow: set TW_TF_PYTHON or run scripts/test.sh, which installs "
                  f"it into {os.path.join(BUILD_DIR, 'tf-venv')}")
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return python


def tf_env():
    """The environment for TensorFlow's python: not our sanitizer runtime (the ASan suite
    preloads it into our python) nor our path."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "PYTHONPATH")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    return env


def run_tf_script(python, script, *args, timeout=300):
    """Runs tf_side/<script> with TensorFlow's python; its stdout, or a failure with stderr."""
    done = subprocess.run([python, os.path.join(TF_SIDE_DIR, script), *args], env=tf_env(), capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, f"TensorFlow side {script} failed:\n{done.stderr[-4000:]}"
    return done.stdout


def run_tf_cases(python, script, tmp_path, arrays, cases, timeout=600):
    """The batch exchange of the differential tests: `arrays` (name -> ndarray) and `cases`
    (JSON) go to tf_side/<script> as in.npz and cases.json; returns what it wrote to out.npz."""
    import json

    import numpy as np
    np.savez(tmp_path / "in.npz", **arrays)
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    run_tf_script(python, script, str(tmp_path / "in.npz"), str(tmp_path / "cases.json"), str(tmp_path / "out.npz"),
                  timeout=timeout)
    return np.load(tmp_path / "out.npz")


def shared_cases_outputs(test_name, cases_module, tmp_dir):
    """For tests whose graphs are built by the same code on both sides (tf_side/<module>.py
    with make_arrays() and build(tf, arrays), run as a script IN OUT that prints a JSON line
    last): (TensorFlow's outputs by name, that JSON)."""
    import json

    import numpy as np
    python = require_tensorflow(test_name)
    np.savez(tmp_dir / "in.npz", **cases_module.make_arrays())
    out = run_tf_script(python, cases_module.__name__ + ".py", str(tmp_dir / "in.npz"), str(tmp_dir / "out.npz"))
    return dict(np.load(tmp_dir / "out.npz")), json.loads(out.strip().splitlines()[-1])


def shared_cases_ours(cases_module, arrays):
    """tensorweave's outputs by name of cases_module.build on `arrays`."""
    with tensorweave.Graph().as_default():
        out = cases_module.build(tensorweave, arrays)
        with tensorweave.Session() as sess:
            return sess.run(out)


def shared_cases_fixtures(test_name, cases_module, arrays):
    """Module-scoped pytest fixtures `theirs` (shared_cases_outputs) and `ours`
    (shared_cases_ours) for a test module to assign: theirs, ours = shared_cases_fixtures(...)."""
    import pytest

    @pytest.fixture(scope="module", name="theirs")
    def theirs(tmp_path_factory):
        return shared_cases_outputs(test_name, cases_module, tmp_path_factory.mktemp("cases"))

    @pytest.fixture(scope="module", name="ours")
    def ours():
        return shared_cases_ours(cases_module, arrays)
    return theirs, ours


def assert_close_to_tensorflow(got, expected, tol64, tol32):
    """Same shape and dtype; integers equal, floats and complex values within tol (of the
    largest element too): tol64 for float64 and complex128, tol32 for the others."""
    import numpy as np
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, got.dtype, expected.shape)
    if got.dtype.kind in "iub":
        np.testing.assert_array_equal(got, expected)
        return
    tol = tol64 if got.dtype in (np.float64, np.complex128) else tol32
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * max(1.0, float(np.abs(expected).max())))


def shared_cases_names(cases_module, arrays):
    with tensorweave.Graph().as_default():
        return sorted(cases_module.build(tensorweave, arrays))
