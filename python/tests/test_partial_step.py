"""Why a between-graph step can be left partly applied on the ps, and the gate that keeps it
whole (scripts/netns_fault_test.sh's flake, RELIABILITY.md "Faults across network
namespaces"): a ps and a worker (real gRPC servers in this process) run
tf_side/partial_step_program.py, a step whose second gradient never arrives, failing at its
deadline; TensorFlow runs the same program (tf_side/partial_step.py) and must agree."""
import json

import pytest

import tensorweave as tf
from conftest import free_port
from tf_peer import require_tensorflow, run_tf_script
from tf_side.partial_step_program import run


@pytest.fixture(scope="module")
def ours():
    spec = tf.train.ClusterSpec({"ps": ["localhost:%d" % free_port()], "worker": ["localhost:%d" % free_port()]})
    servers = [tf.train.Server(spec, job, 0) for job in ("ps", "worker")]
    try:
        yield [run(tf, servers[1].target, gated) for gated in (False, True)]
    finally:
        for server in servers:
            server.stop()


def test_ungated_updates_apply_what_arrived(ours):
    # The ps updated v1 as soon as its gradient came; v2 and the step never moved.
    assert ours[0] == {"v1": 3.0, "v2": 0.0, "step": 0, "error": "DeadlineExceededError"}


def test_gated_updates_apply_nothing_of_a_failed_step(ours):
    assert ours[1] == {"v1": 0.0, "v2": 0.0, "step": 0, "error": "DeadlineExceededError"}


def test_tensorflow_agrees(ours):
    python = require_tensorflow("test_tensorflow_agrees")
    theirs = [json.loads(line) for line in run_tf_script(python, "partial_step.py", timeout=120).splitlines()]
    assert theirs == ours
