"""Sparse gradients: a gather's gradient is tf.IndexedSlices (AddN of several lookups of one
table stays sparse), made dense only by tf.convert_to_tensor (with TensorFlow 1.x's warning
for a huge table), and the optimizers update only the touched rows: SGD bit-equal to the
dense update of the same gradient; SGD, Momentum (and Nesterov), Adagrad, RMSProp and Adam (TF1's sparse rule) equal to
TensorFlow's training, slots included (tf_side/sparse_sgd_program.py)."""
import numpy as np

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

STEPS = 3


def _data():
    rng = np.random.default_rng(11)
    return dict(table=rng.normal(size=(6, 3)).astype(np.float32), w=rng.normal(size=(3,)).astype(np.float32),
                lr=np.array(0.05), batches_a=rng.integers(0, 6, (STEPS, 5)), batches_b=rng.integers(0, 6, (STEPS, 4)))


OPTIMIZERS = {
    "sgd": lambda lr: tf.train.GradientDescentOptimizer(lr),
    "momentum": lambda lr: tf.train.MomentumOptimizer(lr, 0.9),
    "nesterov": lambda lr: tf.train.MomentumOptimizer(lr, 0.9, use_nesterov=True),
    "adagrad": lambda lr: tf.train.AdagradOptimizer(lr, initial_accumulator_value=0.2),
    "rmsprop": lambda lr: tf.train.RMSPropOptimizer(lr, decay=0.8, momentum=0.5, epsilon=1e-6),
    "adam": lambda lr: tf.train.AdamOptimizer(lr, beta1=0.8, beta2=0.9, epsilon=1e-4),
}


def _program(a, densify_for_update, opt_name="sgd"):
    g = tf.Graph()
    with g.as_default():
        table = tf.get_variable("table", initializer=a["table"])
        ids_a, ids_b = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.int64, [None])
        loss = (tf.reduce_sum(tf.nn.embedding_lookup(table, ids_a) * a["w"])
                + tf.reduce_sum(tf.square(tf.nn.embedding_lookup(table, ids_b))))
        grad = tf.gradients(loss, [table])[0]
        dense = tf.convert_to_tensor(grad)
        opt = OPTIMIZERS[opt_name](float(a["lr"]))
        if densify_for_update:
            train = opt.apply_gradients([(tf.convert_to_tensor(gr), v) for gr, v in opt.compute_gradients(loss)])
        else:
            train = opt.minimize(loss)
        out = {"sparse": isinstance(grad, tf.IndexedSlices)}
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            for step, (x, y) in enumerate(zip(a["batches_a"], a["batches_b"])):
                feed = {ids_a: x, ids_b: y}
                if step == 0:
                    out["grad"], out["indices"] = sess.run([dense, grad.indices], feed)
                sess.run(train, feed)
            out["table"] = sess.run(table)
            for slot in opt.get_slot_names():
                out["slot_" + slot] = sess.run(opt.get_slot(table, slot))
    return out


def test_sparse_sgd_equals_dense_bit_for_bit_and_tensorflow(tmp_path):
    a = _data()
    sparse, dense = _program(a, False), _program(a, True)
    assert sparse["sparse"]
    # Two lookups of 5 and 4 ids: their rows concatenated, not summed into the table's shape.
    assert sparse["indices"].tolist() == a["batches_a"][0].tolist() + a["batches_b"][0].tolist()
    np.testing.assert_array_equal(sparse["table"], dense["table"])
    python = require_tensorflow("test_sparse_sgd_equals_dense_bit_for_bit_and_tensorflow")
    np.savez(tmp_path / "in.npz", **a)
    run_tf_script(python, "sparse_sgd_program.py", str(tmp_path / "in.npz"), str(tmp_path / "out.npz"))
    theirs = np.load(tmp_path / "out.npz")
    is_sparse, rows, grad = _resource_gather(a)
    assert is_sparse and bool(theirs["resource_gather_sparse"])
    np.testing.assert_array_equal(rows, theirs["resource_gather_rows"])
    np.testing.assert_allclose(grad, theirs["resource_gather_grad"], rtol=1e-6)
    for opt_name in OPTIMIZERS:
        ours = sparse if opt_name == "sgd" else _program(a, False, opt_name)
        assert ours["sparse"] and bool(theirs[f"{opt_name}_sparse"])
        np.testing.assert_allclose(ours["grad"], theirs[f"{opt_name}_grad"], rtol=1e-6)
        # TensorFlow's SGD adds each duplicate's -lr * row in turn; ours sums them first (as its
        # Momentum and Adagrad do): a rounding apart.
        np.testing.assert_allclose(ours["table"], theirs[f"{opt_name}_table"], rtol=1e-6, atol=1e-6,
                                   err_msg=opt_name)
        slots = sorted(k for k in theirs.files if k.startswith(opt_name + "_slot_"))
        assert sorted("slot_" + k.split("_slot_")[1] for k in slots) == sorted(k for k in ours if k.startswith("slot_"))
        for k in slots:
            np.testing.assert_allclose(ours["slot_" + k.split("_slot_")[1]], theirs[k], rtol=1e-6, atol=1e-6,
                                       err_msg=k)


def _resource_gather(a):
    g = tf.Graph()
    with g.as_default():
        table = tf.get_variable("table", initializer=a["table"])
        rows = g.create_op("ResourceGather", [table.handle, tf.constant(a["batches_a"][:2])],
                           {"dtype": tf.float32}).outputs[0]
        grad = tf.gradients(tf.reduce_sum(rows * rows * a["w"]), [table])[0]
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            return (isinstance(grad, tf.IndexedSlices),) + tuple(sess.run([rows, tf.convert_to_tensor(grad)]))


def test_sparse_update_touches_only_the_rows_looked_up():
    table0 = np.arange(20, dtype=np.float32).reshape(10, 2)
    table = tf.Variable(table0)
    before = tf.Variable(np.zeros((10, 2), np.float32))  # a dense variable beside it, updated densely
    loss = tf.reduce_sum(tf.gather(table, [7, 2, 7])) + tf.reduce_sum(before * 2.0)
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        got, dense, count = sess.run([table, before, step])
    expected = table0.copy()
    expected[7] -= 0.5
    expected[2] -= 0.25
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(dense, np.full((10, 2), -0.5, np.float32))
    assert count == 1


def test_session_fetches_indexed_slices_as_tensorflow_does():
    table = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))
    grad = tf.gradients(tf.reduce_sum(tf.gather(table, [2, 0, 2]) * 3.0), [table])[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value = sess.run(grad)
    assert isinstance(value, tf.IndexedSlicesValue)
    np.testing.assert_array_equal(value.values, np.full((3, 2), 3.0, np.float32))
    assert value.indices.tolist() == [2, 0, 2] and value.dense_shape.tolist() == [4, 2]


def test_densifying_a_huge_sparse_gradient_warns(capfd):
    big = tf.get_variable("big", shape=[100000000, 1], initializer=tf.zeros_initializer())
    grad = tf.gradients(tf.reduce_sum(tf.gather(big, [3])), [big])[0]
    assert isinstance(grad, tf.IndexedSlices) and grad.dense_shape == (100000000, 1)
    dense = tf.convert_to_tensor(grad)
    assert "Converting sparse IndexedSlices to a dense Tensor with 100000000 elements" in capfd.readouterr().err
    assert dense.op.type == "UnsortedSegmentSum"
    assert tf.convert_to_tensor(grad) is dense  # made once


def test_lazy_adam_updates_only_the_rows_looked_up():
    """tf.contrib.opt.LazyAdamOptimizer (TensorFlow 2.20 has no contrib to compare with): its
    formulas in NumPy, float64, duplicates summed first."""
    rng = np.random.default_rng(5)
    table0 = rng.normal(size=(6, 2))
    batches = [np.array([4, 1, 4]), np.array([0, 4]), np.array([1, 1, 5])]
    lr, b1, b2, eps = 0.1, 0.8, 0.9, 1e-3
    g = tf.Graph()
    with g.as_default():
        table = tf.Variable(table0)
        ids = tf.placeholder(tf.int32, [None])
        loss = tf.reduce_sum(tf.square(tf.gather(table, ids)))
        opt = tf.contrib.opt.LazyAdamOptimizer(lr, b1, b2, eps)
        train = opt.minimize(loss)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            ours = []
            for b in batches:
                sess.run(train, {ids: b})
                ours.append(sess.run([table, opt.get_slot(table, "m"), opt.get_slot(table, "v")]))
    var, m, v = table0.copy(), np.zeros_like(table0), np.zeros_like(table0)
    for t, b in enumerate(batches, 1):
        rows = np.zeros_like(table0)
        np.add.at(rows, b, 2 * var[b])
        touched = np.unique(b)
        step = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m[touched] = b1 * m[touched] + (1 - b1) * rows[touched]
        v[touched] = b2 * v[touched] + (1 - b2) * rows[touched] ** 2
        var[touched] -= step * m[touched] / (np.sqrt(v[touched]) + eps)
        for got, want in zip(ours[t - 1], (var, m, v)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert np.array_equal(ours[-1][0][[2, 3]], table0[[2, 3]])  # never looked up: untouched
