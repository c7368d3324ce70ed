"""MetaGraphs tensorweave writes (tf.train.export_meta_graph, Saver.save's .meta), imported by
TensorFlow's tf.compat.v1.train.import_meta_graph and restored by the Saver it returns (a
subprocess with the pinned TensorFlow): our variable values, outputs and collections. And
the round trip within tensorweave."""
import os

import numpy as np

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script


def _train_graph():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.get_variable("w", initializer=tf.constant(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)))
    step = tf.train.get_or_create_global_step()
    pred = tf.matmul(x, w, name="pred")
    loss = tf.reduce_mean(tf.square(pred), name="loss")
    train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=step)
    tf.add_to_collection(tf.GraphKeys.TRAIN_OP, train_op)
    tf.add_to_collection("outputs", pred)
    tf.add_to_collection("my_ints", 42)
    tf.add_to_collection("my_floats", 1.5)
    tf.add_to_collection("my_bytes", b"abc")
    return x, w, step, pred, train_op


def test_saver_meta_graph_imports_and_restores_in_tensorflow(tmp_path):
    python = require_tensorflow("test_saver_meta_graph_imports_and_restores_in_tensorflow")
    x_val = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]], np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        x, w, step, pred, train_op = _train_graph()
        saver = tf.train.Saver()
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            sess.run(train_op, {x: x_val})
        w_val, step_val, pred_val = sess.run([w, step, pred], {x: x_val})
        path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=step)
    assert path.endswith("model.ckpt-2") and os.path.exists(path + ".meta")
    np.savez(tmp_path / "in.npz", x=x_val)
    run_tf_script(python, "import_meta_graph.py", path + ".meta", path, str(tmp_path / "in.npz"), "pred:0",
                  "my_ints,my_floats,my_bytes", str(tmp_path / "out.npz"))
    theirs = dict(np.load(tmp_path / "out.npz"))
    np.testing.assert_array_equal(theirs["var:w"], w_val)
    assert theirs["var:global_step"] == step_val == 2
    assert list(theirs["trainable"]) == ["w"]
    np.testing.assert_allclose(theirs["fetch:pred:0"], pred_val, rtol=1e-6)
    assert list(theirs["collection:my_ints"]) == [42]
    assert list(theirs["collection:my_floats"]) == [1.5]
    assert list(theirs["collection:my_bytes"]) == [b"abc"]
    # TF saved again with the saver subgraph we wrote as NodeDefs: our Saver reads it back.
    with tf.Graph().as_default(), tf.Session() as sess:
        saver = tf.train.import_meta_graph(path + ".meta")
        saver.restore(sess, path + "-by-tf")
        [w2] = [v for v in tf.global_variables() if v.name == "w:0"]
        np.testing.assert_array_equal(sess.run(w2), w_val)


def test_export_import_round_trip_in_tensorweave(tmp_path):
    x_val = np.ones((1, 2), np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        x, w, step, pred, train_op = _train_graph()
        saver = tf.train.Saver()
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "ckpt"), write_meta_graph=False)
        assert not os.path.exists(path + ".meta")
        mg = tf.train.export_meta_graph(str(tmp_path / "m.meta"), saver_def=saver.as_saver_def())
        assert mg.saver_def.restore_op_name == "save/restore_all"
        assert mg.saver_def.filename_tensor_name == "save/Const:0"
        # Our own SaveTensors/RestoreTensors nodes are not in what TensorFlow reads.
        assert not [n for n in mg.graph_def.node if n.op in ("SaveTensors", "RestoreTensors")]
        assert sorted(mg.collection_def) == ["global_step", "my_bytes", "my_floats", "my_ints", "outputs",
                                             "train_op", "trainable_variables", "variables"]
        want = sess.run(pred, {x: x_val})
    with tf.Graph().as_default(), tf.Session() as sess:
        saver = tf.train.import_meta_graph(str(tmp_path / "m.meta"), import_scope="imported")
        saver.restore(sess, path)
        got = sess.run("imported/pred:0", {"imported/x:0": x_val})
        np.testing.assert_array_equal(got, want)
        assert tf.get_collection("my_ints") == [42] and tf.get_collection("my_bytes") == [b"abc"]
        assert [t.name for t in tf.get_collection("outputs")] == ["imported/pred:0"]
        assert sorted(v.name for v in tf.global_variables()) == ["imported/global_step:0", "imported/w:0"]


def test_text_meta_graph_and_no_saver(tmp_path):
    with tf.Graph().as_default():
        tf.add(tf.constant(1.0, name="a"), 2.0, name="b")
        mg = tf.train.export_meta_graph(str(tmp_path / "m.pbtxt"), as_text=True)
        assert not mg.HasField("saver_def")
    with tf.Graph().as_default(), tf.Session() as sess:
        assert tf.train.import_meta_graph(str(tmp_path / "m.pbtxt")) is None
        assert sess.run("b:0") == 3.0


def test_corrupt_meta_graph_is_data_loss_naming_the_file(tmp_path):
    bad = tmp_path / "bad.meta"
    bad.write_bytes(b"\x12\xff\xff\xff\x0f garbage")
    with tf.Graph().as_default():
        try:
            tf.train.import_meta_graph(str(bad))
        except tf.errors.DataLossError as e:
            assert "bad.meta" in str(e)
        else:
            raise AssertionError("no error")


def test_saver_keeps_meta_files_with_max_to_keep(tmp_path):
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.Variable(1.0, name="v")
        sess.run(tf.global_variables_initializer())
        saver = tf.train.Saver(max_to_keep=2)
        for step in range(4):
            saver.save(sess, str(tmp_path / "c"), global_step=step)
    metas = sorted(f for f in os.listdir(tmp_path) if f.endswith(".meta"))
    assert metas == ["c-2.meta", "c-3.meta"]
