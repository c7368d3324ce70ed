"""SavedModels and a MetaGraph TensorFlow wrote (tests/data/tf_saved_models/, generate.py
there; MANIFEST.txt names the version), loaded in tensorweave: outputs equal to what
TensorFlow computed when writing them."""
import os

import numpy as np
import pytest

import tensorweave as tf

SOURCE_DIR = os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(SOURCE_DIR, "tests", "data", "tf_saved_models")
EXPECTED = dict(np.load(os.path.join(FIXTURES, "expected.npz")))


def _value(sess, name):
    """The value of the global variable named `name` (its ":0" tensor is the handle)."""
    [var] = [v for v in tf.global_variables() if v.name == name + ":0"]
    return sess.run(var)


def test_builder_model_serving_signature_gives_tensorflows_outputs():
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], os.path.join(FIXTURES, "builder"))
        assert list(mg.meta_info_def.tags) == ["serve"]
        sig = mg.signature_def[tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        assert sig.method_name == tf.saved_model.signature_constants.PREDICT_METHOD_NAME
        x = tf.saved_model.utils.get_tensor_from_tensor_info(sig.inputs["x"])
        y = tf.saved_model.utils.get_tensor_from_tensor_info(sig.outputs["y"])
        total = tf.saved_model.utils.get_tensor_from_tensor_info(sig.outputs["total"])
        y_val, total_val = sess.run([y, total], {x: EXPECTED["builder/x"]})
        np.testing.assert_allclose(y_val, EXPECTED["builder/y"], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(total_val, EXPECTED["builder/total"], rtol=1e-6)
        # The restored variables are the trained values TF saved, not their initial values.
        for name in ("dense/kernel", "dense/bias"):
            np.testing.assert_array_equal(_value(sess, name), EXPECTED["builder/" + name])
        assert sorted(v.name for v in tf.trainable_variables()) == ["dense/bias:0", "dense/kernel:0"]


def test_builder_second_tag_set_and_import_scope():
    with tf.Graph().as_default() as g, tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["train"], os.path.join(FIXTURES, "builder"), import_scope="m")
        assert not mg.signature_def
        np.testing.assert_array_equal(_value(sess, "m/dense/kernel"), EXPECTED["builder/dense/kernel"])
        got = sess.run(g.get_tensor_by_name("m/y:0"), {"m/x:0": EXPECTED["builder/x"]})
        np.testing.assert_allclose(got, EXPECTED["builder/y"], rtol=1e-6, atol=1e-6)


def test_simple_save_model_gives_tensorflows_outputs():
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], os.path.join(FIXTURES, "simple"))
        inputs, outputs = tf.saved_model.signature_tensors(mg, "serving_default")
        assert sorted(inputs) == ["a", "b"] and sorted(outputs) == ["out"]
        got = sess.run(outputs["out"], {inputs["a"]: EXPECTED["simple/a"], inputs["b"]: EXPECTED["simple/b"]})
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, EXPECTED["simple/out"], rtol=1e-12)


def test_meta_graph_from_tf_saver_restores_and_keeps_collections():
    meta = os.path.join(FIXTURES, "meta", "model.ckpt-3.meta")
    with tf.Graph().as_default(), tf.Session() as sess:
        saver = tf.train.import_meta_graph(meta)
        saver.restore(sess, tf.train.latest_checkpoint(os.path.join(FIXTURES, "meta")))
        np.testing.assert_array_equal(_value(sess, "v"), EXPECTED["meta/v"])
        assert _value(sess, "global_step") == 3
        np.testing.assert_allclose(sess.run("pred:0", {"x:0": EXPECTED["meta/x"]}), EXPECTED["meta/pred"], rtol=1e-6)
        assert tf.get_collection("my_ints") == [3, -7]
        assert tf.get_collection("my_floats") == [0.25]
        assert tf.get_collection("my_bytes") == [b"hello"]
        assert [t.name for t in tf.get_collection("outputs")] == ["pred:0", "loss:0"]
        assert [v.name for v in tf.trainable_variables()] == ["v:0"]
        assert sorted(v.name for v in tf.global_variables()) == ["global_step:0", "v:0"]
        # The imported train_op trains: one step moves v and the global step.
        sess.run(tf.get_collection(tf.GraphKeys.TRAIN_OP)[0], {"x:0": EXPECTED["meta/x"]})
        assert _value(sess, "global_step") == 4
        assert not np.array_equal(_value(sess, "v"), EXPECTED["meta/v"])


def test_tf2_saved_model_runs_with_its_functions_inlined():
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], os.path.join(FIXTURES, "tf2_module"))
        inputs, outputs = tf.saved_model.signature_tensors(mg, "serving_default")
        got = sess.run(outputs["y"], {inputs["x"]: EXPECTED["tf2_module/x"]})
        np.testing.assert_allclose(got, EXPECTED["tf2_module/y"], rtol=1e-6)


def test_tf2_meta_graph_import_is_refused_naming_the_function_call_op():
    # import_meta_graph keeps TF1's Python path: a TF2 graph there is Unimplemented.
    mg = tf.saved_model.read_saved_model(os.path.join(FIXTURES, "tf2_module")).meta_graphs[0]
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.UnimplementedError, match="StatefulPartitionedCall"):
            tf.train.import_meta_graph(mg)


def test_tf2_saved_model_with_two_outputs_and_nested_functions():
    # The signature's call has outputs 0 and 1, and its function calls another tf.function.
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], os.path.join(FIXTURES, "tf2_two_heads"))
        inputs, outputs = tf.saved_model.signature_tensors(mg, "serving_default")
        assert sorted(outputs) == ["logits", "scaled"]
        got = sess.run(outputs, {inputs["x"]: EXPECTED["tf2_two_heads/x"]})
        for key in ("logits", "scaled"):
            np.testing.assert_allclose(got[key], EXPECTED["tf2_two_heads/" + key], rtol=1e-6, err_msg=key)
