"""tf.print and tf.strings.format (the StringFormat and PrintV2 ops) against TensorFlow: the
same program (tf_side/print_v2_program.py) run by both must write the same stdout (C++ writes
and Python lines in order: every dtype, rank 0 to 4, elision, empty tensors, nested Python
structures, sep / end / summarize, the file:// stream's contents, errors) and the same stderr
(sys.stderr and the log streams, TF_CPP_MIN_LOG_LEVEL honoured), log lines compared after
their time stamp and source location."""
import os
import re
import subprocess
import sys

import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, tf_env

# TensorFlow's own messages on stderr (start-up, optimizer passes), not the program's.
_NOISE = re.compile(r"^(WARNING: All log messages before absl|I0000 |\S+ \S+: I tensorflow/core/(util|platform)/|"
                    r"To enable the following instructions)")
_LOG_PREFIX = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}: ([IWE]) [^ \]]+:\d+\] ")


def _run(side, exe, env, tmp_path, log_level):
    env = dict(env, TF_CPP_MIN_LOG_LEVEL=str(log_level))
    out_file = tmp_path / f"{side}{log_level}.txt"
    done = subprocess.run([exe, os.path.join(TF_SIDE_DIR, "print_v2_program.py"), side, str(out_file)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    stderr = done.stderr.split("<<BEGIN>>\n", 1)[1].split("<<END>>\n", 1)[0]
    lines = [_LOG_PREFIX.sub(r"\1] ", ln) for ln in stderr.splitlines() if not _NOISE.match(ln)]
    return done.stdout.replace(str(out_file), "OUT_FILE"), lines


@pytest.mark.parametrize("log_level", [0, 2])
def test_program_writes_what_tensorflow_writes(tmp_path, log_level):
    python = require_tensorflow("test_program_writes_what_tensorflow_writes")
    ours_env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    theirs = _run("tf", python, tf_env(), tmp_path, log_level)
    ours = _run("tw", sys.executable, ours_env, tmp_path, log_level)
    assert ours[0].splitlines() == theirs[0].splitlines()
    assert ours[1] == theirs[1]
    # Each stream printed twice: stderr, then info, warning, error by function and by level.
    logged = [ln[0] for ln in theirs[1] if ln[:3] in ("I] ", "W] ", "E] ")]
    assert logged == (list("IIWWEEIIWWEE") if log_level == 0 else list("EEEE"))
    assert theirs[1][:2] == ["to [[1 2 3]", " [4 5 6]]!"]


def test_print_returns_the_print_op_to_run_or_depend_on(capfd):
    with tf.Graph().as_default():
        x = tf.constant([1, 2])
        op = tf.print("x =", x, output_stream=sys.stdout)
        assert isinstance(op, tf.Operation) and op.type == "PrintV2" and not op.outputs
        assert op.inputs[0].op.type == "StringFormat"
        with tf.control_dependencies([op]):
            y = tf.identity(x)
        with tf.Session() as sess:
            sess.run(y)
        assert capfd.readouterr().out == "x = [1 2]\n"
    assert tf.compat.v1.print is tf.print and tf.strings.format is not None
