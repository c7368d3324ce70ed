"""GraphDefs tensorweave writes are read by real TensorFlow (tf.import_graph_def) and compute
what tensorweave computed: the seeds' programs and a training graph made of our gradient and
optimizer nodes, trained the same number of steps by both."""
import numpy as np

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

RNG = np.random.default_rng(7)
X = RNG.normal(size=(16, 3)).astype(np.float32)
T = (X @ np.array([[1.0], [-2.0], [3.0]], np.float32) + 0.25).astype(np.float32)


def seed_238():
    x = tf.constant(2)
    tf.identity((x + 300) + (x - 66), name="y")
    return {}, ["y:0"], None, None, 0


def seed_mean():
    x = tf.placeholder(tf.float32, [None], name="x")
    tf.reduce_mean(x, name="mean")
    return {"x:0": RNG.random(100).astype(np.float32)}, ["mean:0"], None, None, 0


def regression_training():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    t = tf.placeholder(tf.float32, [None, 1], name="t")
    w = tf.get_variable("w", initializer=tf.constant(np.array([[0.1], [0.2], [0.3]], np.float32)))
    b = tf.get_variable("b", initializer=tf.constant([0.5], tf.float32))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - t), name="loss")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
    init = tf.global_variables_initializer()
    tf.identity(w, name="w_value")
    return {"x:0": X, "t:0": T}, ["loss:0", "w_value:0"], init, train, 25


PROGRAMS = {"seed_238": seed_238, "seed_mean": seed_mean, "regression_training": regression_training}


def write_and_run_here(directory, name, make):
    g = tf.Graph()
    with g.as_default():
        feeds, fetches, init, train, steps = make()
    with open(directory / f"{name}.pb", "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    arrays = {"feed:" + k: v for k, v in feeds.items()}
    with tf.Session(graph=g) as sess:
        feed_dict = {g.get_tensor_by_name(k): v for k, v in feeds.items()}
        if init is not None:
            sess.run(init)
            arrays["init:" + init.name] = np.array(1)
            arrays["step:" + train.name] = np.array(steps)
        for _ in range(steps):
            sess.run(train, feed_dict)
        values = sess.run([g.get_tensor_by_name(f) for f in fetches], feed_dict)
    arrays.update({"fetch:" + k: v for k, v in zip(fetches, values)})
    np.savez(directory / f"{name}.npz", **arrays)
    return dict(zip(fetches, values))


def test_tensorflow_runs_our_graphdefs_with_our_results(tmp_path):
    python = require_tensorflow("test_tensorflow_runs_our_graphdefs_with_our_results")
    ours = {name: write_and_run_here(tmp_path, name, make) for name, make in PROGRAMS.items()}
    run_tf_script(python, "run_graphdefs.py", str(tmp_path), *PROGRAMS)
    for name, values in ours.items():
        theirs = np.load(tmp_path / f"{name}.tf.npz")
        assert sorted(theirs.files) == sorted(values), name
        for fetch, value in values.items():
            assert theirs[fetch].dtype == value.dtype and theirs[fetch].shape == value.shape, (name, fetch)
            if np.issubdtype(value.dtype, np.floating):
                # float32 sums in another order, after 25 steps of training: a few ulps.
                np.testing.assert_allclose(theirs[fetch], value, rtol=2e-6, atol=1e-6, err_msg=f"{name} {fetch}")
            else:
                np.testing.assert_array_equal(theirs[fetch], value, err_msg=f"{name} {fetch}")
    assert float(ours["regression_training"]["loss:0"]) < 1.0  # it trained
