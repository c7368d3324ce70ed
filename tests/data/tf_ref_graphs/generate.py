"""Writes the fixtures of this folder with real TensorFlow: tf.compat.v1 programs with TF1's
default reference variables (VariableV2, Assign, Apply*, ScatterUpdate, SaveV2, ...), and
what TensorFlow computed with them, for python/tests/test_tf_ref_graphs.py.

Run with the suite's pinned TensorFlow (scripts/tf_env.sh prints its python):
    $(scripts/tf_env.sh) tests/data/tf_ref_graphs/generate.py
Each fixture NAME is NAME.pb (the binary GraphDef as TensorFlow serialized it) and NAME.npz:
  prefetch:<tensor>   fetched before anything runs (e.g. the uninitialized variables)
  init                op names run first, in order
  train, stepfeed:<tensor>   the op run once per step with row i of each stepfeed array
  sequence            op names run after training, in order, without feeds
  fetch:<tensor>      what TensorFlow fetched then (fetchfeed:<tensor> fed)
  after<i>:<tensor>   then fetched alone, one run each, in the order of i (an update's output)
A saver fixture also has NAME_ckpt/model.ckpt.* (the checkpoint TensorFlow's own save op
wrote from that graph) and saver:filename / saver:save / saver:restore (its SaverDef's
names), ckpt:<variable> (the values in that checkpoint) and set2 (an op that assigns other
values, run before a test saves); cpus is the number of CPU devices the session had. MANIFEST.txt records the TensorFlow version.
"""
import os
import shutil
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_resource_variables()
HERE = os.path.dirname(os.path.abspath(__file__))


def run_and_write(name, graph, init, fetches, train=None, stepfeeds=None, sequence=(), prefetch=(),
                  fetchfeeds=None, extra=None, after=(), cpus=1):
    stepfeeds = stepfeeds or {}
    fetchfeeds = fetchfeeds or {}
    arrays = {}
    config = tf1.ConfigProto(device_count={"CPU": cpus})
    with tf1.Session(graph=graph, config=config) as sess:
        t = graph.get_tensor_by_name
        for k, v in zip(prefetch, sess.run([t(k) for k in prefetch])):
            arrays["prefetch:" + k] = v
        for op in init:
            sess.run(graph.get_operation_by_name(op))
        steps = len(next(iter(stepfeeds.values()))) if stepfeeds else 0
        for i in range(steps):
            sess.run(graph.get_operation_by_name(train), {t(k): v[i] for k, v in stepfeeds.items()})
        for op in sequence:
            sess.run(graph.get_operation_by_name(op))
        values = sess.run([t(f) for f in fetches], {t(k): v for k, v in fetchfeeds.items()})
        for i, f in enumerate(after):  # each in a run of its own, in order
            arrays[f"after{i}:{f}"] = sess.run(t(f))
        if extra is not None:
            arrays.update(extra(sess))
    with open(os.path.join(HERE, name + ".pb"), "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())
    arrays["init"] = np.array(list(init))
    arrays["cpus"] = np.array(cpus)
    arrays["sequence"] = np.array(list(sequence), dtype=str)
    if train is not None:
        arrays["train"] = np.array(train)
    arrays.update({"stepfeed:" + k: v for k, v in stepfeeds.items()})
    arrays.update({"fetchfeed:" + k: v for k, v in fetchfeeds.items()})
    arrays.update({"fetch:" + k: v for k, v in zip(fetches, values)})
    # Strings as fixed-width bytes: object arrays would need pickle to load.
    arrays = {k: v.astype(bytes) if isinstance(v, np.ndarray) and v.dtype == object else v for k, v in arrays.items()}
    np.savez(os.path.join(HERE, name + ".npz"), **arrays)
    ops = sorted({n.op for n in graph.as_graph_def().node if n.op.startswith(("Apply", "Scatter", "Assign", "Variable"))})
    print(f"{name}: {len(graph.as_graph_def().node)} nodes, ref ops {ops}")


OPTIMIZERS = {
    "gradient_descent": lambda: tf1.train.GradientDescentOptimizer(0.05),
    "momentum": lambda: tf1.train.MomentumOptimizer(0.05, 0.9),
    "momentum_nesterov": lambda: tf1.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "adam": lambda: tf1.train.AdamOptimizer(0.05),
    "adagrad": lambda: tf1.train.AdagradOptimizer(0.2),
    "rmsprop": lambda: tf1.train.RMSPropOptimizer(0.02, momentum=0.5),
    "rmsprop_centered": lambda: tf1.train.RMSPropOptimizer(0.02, momentum=0.5, centered=True),
}


def linear_regression(opt_name):
    """A linear model trained 12 steps, a new batch each step, with a global step."""
    rng = np.random.default_rng(len(opt_name))
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        y = tf1.placeholder(tf.float32, [None, 1], name="y")
        w = tf1.Variable(rng.normal(size=(3, 1)).astype(np.float32), name="w")
        b = tf1.Variable(np.zeros(1, np.float32), name="b")
        step = tf1.train.get_or_create_global_step()
        loss = tf1.reduce_mean(tf1.square(tf1.matmul(x, w) + b - y), name="loss")
        OPTIMIZERS[opt_name]().minimize(loss, global_step=step, name="train")
        tf1.global_variables_initializer()
    true_w = np.array([[1.0], [-2.0], [0.5]], np.float32)
    xs = rng.normal(size=(12, 8, 3)).astype(np.float32)
    ys = (xs @ true_w + 0.3).astype(np.float32)
    run_and_write("linreg_" + opt_name, g, ["init"], ["w/read:0", "b/read:0", "global_step/read:0", "loss:0"],
                  train="train", stepfeeds={"x:0": xs, "y:0": ys},
                  fetchfeeds={"x:0": xs[0], "y:0": ys[0]})


def embedding_scatter():
    """ScatterUpdate / ScatterAdd on float and int32 tables (repeated indices add up)."""
    g = tf1.Graph()
    with g.as_default():
        emb = tf1.Variable(np.arange(15, dtype=np.float32).reshape(5, 3), name="emb")
        counts = tf1.Variable(np.zeros(4, np.int32), name="counts")
        tf1.scatter_update(emb, tf1.constant([1, 3]), tf1.constant([[9, 9, 9], [7, 7, 7]], tf.float32), name="upd")
        tf1.scatter_add(emb, tf1.constant([0, 0, 4], tf.int64), tf1.ones([3, 3]) * 0.5, name="add")
        tf1.scatter_add(counts, [2, 2, 3], [1, 5, 7], name="count")
        tf1.assign_add(counts, [10, 20, 30, 40], name="bump")
        tf1.assign_sub(emb, tf1.ones([5, 3]), name="dec")
        grow = tf1.Variable(np.zeros(2, np.float32), name="grow")  # validate_shape=False: takes any shape
        tf1.assign(grow, [[1.0, 2.0, 3.0]], validate_shape=False, name="regrow")
        tf1.global_variables_initializer()
    run_and_write("embedding_scatter", g, ["init"], ["emb/read:0", "counts/read:0", "grow/read:0"],
                  sequence=["upd", "add", "count", "bump", "count", "dec", "regrow"],
                  after=["count:0", "upd:0", "dec:0"])


def embedding_training():
    """An embedding lookup trained by GradientDescent: its sparse gradient is a ScatterSub
    on the table (repeated ids in a batch subtract twice)."""
    rng = np.random.default_rng(11)
    g = tf1.Graph()
    with g.as_default():
        ids = tf1.placeholder(tf.int32, [None], name="ids")
        target = tf1.placeholder(tf.float32, [None], name="target")
        table = tf1.Variable(rng.normal(size=(6, 4)).astype(np.float32), name="table")
        proj = tf1.Variable(rng.normal(size=(4, 1)).astype(np.float32), name="proj")
        pred = tf1.reshape(tf1.matmul(tf1.nn.embedding_lookup(table, ids), proj), [-1])
        loss = tf1.reduce_mean(tf1.square(pred - target), name="loss")
        tf1.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        tf1.global_variables_initializer()
    id_steps = rng.integers(0, 6, size=(10, 5)).astype(np.int32)
    id_steps[:, 1] = id_steps[:, 0]  # a repeated id in every batch
    targets = rng.normal(size=(10, 5)).astype(np.float32)
    run_and_write("embedding_training", g, ["init"], ["table/read:0", "proj/read:0", "loss:0"], train="train",
                  stepfeeds={"ids:0": id_steps, "target:0": targets},
                  fetchfeeds={"ids:0": id_steps[0], "target:0": targets[0]})


def init_check():
    """IsVariableInitialized and report_uninitialized_variables before and after init."""
    g = tf1.Graph()
    with g.as_default():
        a = tf1.Variable([1.0, 2.0], name="a")
        tf1.Variable(3, name="c")
        tf1.identity(tf1.is_variable_initialized(a), name="a_ready")
        tf1.identity(tf1.report_uninitialized_variables(), name="uninitialized")
        tf1.variables_initializer([a], name="init_a")
        tf1.global_variables_initializer()
    run_and_write("init_check", g, ["init_a"], ["a_ready:0", "uninitialized:0"],
                  prefetch=["a_ready:0", "uninitialized:0"])


def saver_graph(sharded, two_devices=False):
    """A graph with tf.compat.v1.train.Saver; TensorFlow's save op writes the checkpoint.
    With two_devices, w and b live on CPU:0 and n and k on CPU:1: a sharded save writes one
    part per device and merges them into a checkpoint of two data shards."""
    name = "saver_two_devices" if two_devices else "saver_sharded" if sharded else "saver_plain"
    rng = np.random.default_rng(9 if two_devices else 7 if sharded else 8)
    g = tf1.Graph()
    with g.as_default():
        with tf1.device("/cpu:0"):
            w = tf1.Variable(rng.normal(size=(2, 3)).astype(np.float32), name="w")
            b = tf1.Variable(np.zeros(3, np.float64), name="b")
        with tf1.device("/cpu:1" if two_devices else "/cpu:0"):
            n = tf1.Variable(np.int64(5), name="n")
            k = tf1.Variable(np.array([1, 2, 3, 4], np.int32), name="k")
        set1 = [tf1.assign(w, rng.normal(size=(2, 3)).astype(np.float32)),
                tf1.assign(b, rng.normal(size=3)), tf1.assign(n, 12345678901), tf1.assign(k, [-7, 0, 7, 2 ** 31 - 1])]
        tf1.group(*set1, name="set1")
        set2 = [tf1.assign(w, rng.normal(size=(2, 3)).astype(np.float32)),
                tf1.assign(b, rng.normal(size=3)), tf1.assign(n, -3), tf1.assign(k, [9, 8, 7, 6])]
        tf1.group(*set2, name="set2")
        saver = tf1.train.Saver(sharded=sharded)
        tf1.global_variables_initializer()
    sd = saver.saver_def
    ckpt_dir = os.path.join(HERE, name + "_ckpt")
    shutil.rmtree(ckpt_dir, ignore_errors=True)
    os.makedirs(ckpt_dir)

    def save(sess):
        prefix = saver.save(sess, os.path.join(ckpt_dir, "model.ckpt"), write_meta_graph=False,
                            write_state=False)
        assert prefix.endswith("model.ckpt"), prefix
        values = sess.run({v.op.name: v for v in (w, b, n, k)})
        return {"ckpt:" + k_: v for k_, v in values.items()} | {
            "saver:filename": np.array(sd.filename_tensor_name), "saver:save": np.array(sd.save_tensor_name),
            "saver:restore": np.array(sd.restore_op_name), "set2": np.array("set2")}

    run_and_write(name, g, ["init"], ["w/read:0", "b/read:0", "n/read:0", "k/read:0"], sequence=["set1"],
                  extra=save, cpus=2 if two_devices else 1)
    print(" ", sorted(os.listdir(ckpt_dir)))


if __name__ == "__main__":
    for opt in OPTIMIZERS:
        linear_regression(opt)
    embedding_scatter()
    embedding_training()
    init_check()
    saver_graph(sharded=False)
    saver_graph(sharded=True)
    saver_graph(sharded=True, two_devices=True)
    with open(os.path.join(HERE, "MANIFEST.txt"), "w") as f:
        f.write(f"written by TensorFlow {tf.__version__} (tensorflow-cpu from PyPI, tf.compat.v1 graph mode with\n"
                f"reference variables), Python {sys.version.split()[0]}, NumPy {np.__version__}, with generate.py\n"
                f"of this folder.\n")
