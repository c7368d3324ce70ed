"""tools/api_coverage.py, the report of which TF1 API names (TensorFlow's own list, pinned in
tests/data/tf_api_names/) tensorweave has: it runs, its verdicts hold name by name, and it
leaves out the areas outside the project."""
import json
import os
import re
import subprocess
import sys

import tensorweave as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "api_coverage.py")
DATA = os.path.join(ROOT, "tests", "data", "tf_api_names")


def resolves(name):
    value = tf
    for part in name.split(".")[1:]:
        if not hasattr(value, part):
            return False
        value = getattr(value, part)
    return True


def test_report_matches_the_module(tmp_path):
    out = tmp_path / "coverage.json"
    done = subprocess.run([sys.executable, TOOL, "--json", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    present = {n for e in result.values() for n in e["present"]}
    missing = {n for e in result.values() for n in e["missing"]}
    assert all(resolves(n) for n in present) and not any(resolves(n) for n in missing)
    # The names this first part added are counted as present.
    for name in ("tf.sin", "tf.round", "tf.reduce_logsumexp", "tf.count_nonzero", "tf.Assert", "tf.check_numerics",
                 "tf.math.xlogy", "tf.math.is_nan", "tf.bitwise.invert", "tf.debugging.assert_positive"):
        assert name in present, name
    # Out of scope: not counted either way.
    assert not any(n.split(".")[1] in ("keras", "lite", "raw_ops", "compat") for n in present | missing)
    first = done.stdout.splitlines()[0]
    counted = re.match(r"TF1 API names in scope: (\d+) of (\d+)", first)
    assert counted and int(counted.group(1)) == len(present) and int(counted.group(2)) == len(present | missing)


def test_pinned_list_is_tensorflows():
    manifest = open(os.path.join(DATA, "MANIFEST.txt")).read()
    names = open(os.path.join(DATA, "tf1_api_names.txt")).read().split()
    assert "TensorFlow 2.20.0" in manifest and f"({len(names)} names)" in manifest
    assert len(set(names)) == len(names) and all(n.startswith("tf.") for n in names)
