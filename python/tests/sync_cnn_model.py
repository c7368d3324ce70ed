"""The CNN of test_sync_replicas_cnn.py, built alike by each worker process (between-graph
replication) and by the test to read the ps afterwards: conv -> batch norm (training, its
moving statistics updated by the UPDATE_OPS the train op runs) -> relu -> max pool ->
dense, variables on the ps through replica_device_setter, SyncReplicasOptimizer over 2
replicas. Data: 8x8 images whose label says which half is brighter."""
import numpy as np

import tensorweave as tf

REPLICAS = 2


def data(seed=7, n=32):
    rng = np.random.default_rng(seed)
    images = rng.normal(size=(n, 8, 8, 1)).astype(np.float32)
    labels = (images[:, :, :4].mean(axis=(1, 2, 3)) > images[:, :, 4:].mean(axis=(1, 2, 3))).astype(np.int64)
    images[:, :, :4] += 0.5  # the statistics batch norm tracks are away from its initial 0 / 1
    return images, labels


def build(cluster, task):
    """cluster: {"ps": [...], "worker": [...]} addresses. Returns a dict of the graph's parts."""
    graph = tf.Graph()
    spec = tf.train.ClusterSpec(cluster)
    with graph.as_default(), tf.device(tf.train.replica_device_setter(
            cluster=spec, worker_device="/job:worker/task:%d" % task)):
        x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="images")
        y = tf.placeholder(tf.int64, [None], name="labels")
        h = tf.layers.conv2d(x, 4, 3, padding="same", use_bias=False,
                             kernel_initializer=tf.random_normal_initializer(stddev=0.3, seed=1))
        h = tf.layers.batch_normalization(h, training=True, momentum=0.8)
        h = tf.layers.max_pooling2d(tf.nn.relu(h), 2, 2)
        logits = tf.layers.dense(tf.reshape(h, [-1, 4 * 4 * 4]), 2,
                                 kernel_initializer=tf.random_normal_initializer(stddev=0.1, seed=2))
        loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
        step = tf.train.get_or_create_global_step()
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.2), replicas_to_aggregate=REPLICAS,
                                             total_num_replicas=REPLICAS)
        # The UPDATE_OPS run with every training step. Grouped rather than as control
        # dependencies around minimize: the sync optimizer builds its init ops (local step,
        # chief init) in apply_gradients, and, as in TensorFlow, they would inherit them
        # (and then need the images fed to initialize).
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        train = tf.group(opt.minimize(loss, global_step=step), *update_ops)
        moving = {v.name: v for v in tf.global_variables() if "moving_" in v.name}
    return {"graph": graph, "x": x, "y": y, "loss": loss, "step": step, "opt": opt, "train": train,
            "moving": moving, "update_ops": update_ops}
