"""Between-graph CNN training with SyncReplicasOptimizer on 1 ps and 2 workers, every one a
process of its own on a free port (servers from conftest.ServerProcesses, one client
process per worker running sync_cnn_worker.py): the loss falls, and batch norm's moving
mean and variance, updated on the ps through UPDATE_OPS, have moved from their initial 0
and 1 and are finite."""
import json
import os
import subprocess

import numpy as np

import tensorweave as tf
from conftest import PYTHON, ServerProcesses, free_port, python_env
from sync_cnn_model import build, data

LAST_STEP = 30
HERE = os.path.dirname(os.path.abspath(__file__))


def test_sync_replicas_cnn_with_batch_norm(tmp_path):
    ps, w0, w1 = ("localhost:%d" % free_port() for _ in range(3))
    cluster = {"ps": [ps], "worker": [w0, w1]}
    spec = "ps|%s,worker|%s;%s" % (ps, w0, w1)
    servers = [ServerProcesses(spec, "ps", 1)]
    clients = []
    try:
        servers.append(ServerProcesses(spec, "worker", 2))
        for task in (0, 1):
            clients.append(subprocess.Popen(
                [PYTHON, os.path.join(HERE, "sync_cnn_worker.py"), json.dumps(cluster), str(task), str(LAST_STEP),
                 str(tmp_path / ("worker%d.json" % task)), str(tmp_path / ("worker%d.json" % (1 - task)))],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=python_env()))
        outputs = [c.communicate(timeout=240) for c in clients]
        for task, (c, (out, err)) in enumerate(zip(clients, outputs)):
            assert c.returncode == 0, "worker %d failed:\n%s\n%s" % (task, out, err[-4000:])
        chief = json.loads((tmp_path / "worker0.json").read_text())["losses"]
        other = json.loads((tmp_path / "worker1.json").read_text())["losses"]
        # Both replicas trained: each step averaged 2 gradients, so together they ran at
        # least 2 * LAST_STEP steps (the other one's last may have ended in the closed queue).
        assert len(chief) + len(other) >= 2 * LAST_STEP - 1 and len(other) >= 3, (len(chief), len(other))
        assert np.all(np.isfinite(chief + other))
        # The loss falls: the last steps' mean well below the first steps'.
        assert np.mean(chief[-3:]) < 0.8 * np.mean(chief[:3]), chief

        # The shared state on the ps, read by a fresh client.
        model = build(cluster, 0)
        with model["graph"].as_default(), tf.Session("grpc://" + w0) as sess:
            assert sess.run(model["step"]) >= LAST_STEP
            moving = sess.run(model["moving"])
            assert sorted(moving) == ["batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
            mean = moving["batch_normalization/moving_mean:0"]
            variance = moving["batch_normalization/moving_variance:0"]
            assert mean.shape == variance.shape == (4,)
            assert np.all(np.isfinite(mean)) and np.all(np.isfinite(variance))
            assert np.all(np.abs(mean) > 1e-3), mean
            assert np.all(np.abs(variance - 1.0) > 1e-3), variance
            # They track the batch statistics of the conv output: compare with that output
            # computed from the ps's current kernel (the last updates used nearly that kernel).
            images, _ = data()
            conv = sess.run(model["graph"].get_tensor_by_name("conv2d/Conv2D:0"), {model["x"]: images})
            np.testing.assert_allclose(mean, conv.mean(axis=(0, 1, 2)), rtol=0.5, atol=0.2)
    finally:
        for c in clients:
            if c.poll() is None:
                c.kill()
                c.wait()
        for s in servers:
            s.stop()
