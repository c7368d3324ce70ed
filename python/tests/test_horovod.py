"""tensorweave.horovod: python/examples/allreduce_mlp.py trains the MLP on 2 and 3 worker
processes (no ps) and must give every worker the loss of one-process training on the
whole batch; DistributedOptimizer's buckets; init's errors."""
import os
import subprocess

import pytest

import tensorweave as tf
import tensorweave.horovod as hvd
from conftest import EXAMPLES_DIR, PYTHON, free_port, python_env


@pytest.mark.parametrize("flags", [[], ["--workers", "3", "--optimizer", "momentum", "--bucket_bytes", "26214400"],
                                   ["--optimizer", "adam", "--bucket_bytes", "1"]])
def test_allreduce_mlp_equals_one_process_training(flags):
    done = subprocess.run([PYTHON, os.path.join(EXAMPLES_DIR, "allreduce_mlp.py"), "--steps", "6"] + flags,
                          capture_output=True, text=True, timeout=600, env=python_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "losses equal on every worker: True" in done.stdout, done.stdout


def _reduces(graph):
    return [op for op in graph.get_operations() if op.type == "CollectiveReduce"]


def test_buckets_pack_small_gradients_in_backward_order():
    hvd.init(cluster={"worker": ["localhost:%d" % free_port(), "localhost:%d" % free_port()]}, job_name="worker",
             task_index=1)
    try:
        assert (hvd.rank(), hvd.size()) == (1, 2)
        for bucket_bytes, want in ((25 * 1024 * 1024, 1), (64 * 1024, 2), (1, 4)):
            g = tf.Graph()
            with g.as_default():
                x = tf.placeholder(tf.float32, [8, 784])
                w1 = tf.Variable(tf.zeros([784, 256]))  # 802816 bytes: alone unless the bucket is 25 MB
                b1 = tf.Variable(tf.zeros([256]))
                w2 = tf.Variable(tf.zeros([256, 10]))
                b2 = tf.Variable(tf.zeros([10]))
                loss = tf.reduce_sum(tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2)
                opt = hvd.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.1), bucket_bytes=bucket_bytes)
                pairs = opt.compute_gradients(loss)
                assert [v for _, v in pairs] == [w1, b1, w2, b2]
                assert [g_.shape.as_list() for g_, _ in pairs] == [[784, 256], [256], [256, 10], [10]]
                assert len(_reduces(g)) == want, bucket_bytes
                # Instance keys follow creation order, so every worker's graph pairs them alike.
                graph_def = g.as_graph_def()
                keys = [node.attr["instance_key"].i for node in graph_def.node if node.op == "CollectiveReduce"]
                assert keys == sorted(keys) and keys[0] == 1
    finally:
        hvd.shutdown()


def test_init_needs_a_cluster(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    with pytest.raises(ValueError, match="set TF_CONFIG"):
        hvd.init()
    with pytest.raises(ValueError, match="has not been initialized"):
        hvd.rank()
