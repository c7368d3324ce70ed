"""SavedModels tensorweave writes, loaded by TensorFlow's own loader
(tf.compat.v1.saved_model.loader.load, a subprocess with the pinned TensorFlow): the same
outputs as tensorweave's. And the loader's errors, beside TensorFlow's for the same input."""
import os

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script


def _mlp_graph(rng):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w = tf.get_variable("layer/w", initializer=tf.constant(rng.normal(size=(4, 3)).astype(np.float32)))
    b = tf.get_variable("layer/b", initializer=tf.constant(np.array([0.1, -0.2, 0.3], np.float32)))
    logits = tf.add(tf.matmul(x, w), b, name="logits")
    probs = tf.nn.softmax(logits, name="probs")
    label = tf.argmax(logits, 1, name="label")
    return x, w, b, logits, probs, label


def _tf_outputs(python, export_dir, tags, sig, inputs, tmp_path):
    np.savez(tmp_path / "in.npz", **inputs)
    run_tf_script(python, "load_saved_model.py", str(export_dir), ",".join(tags), sig, str(tmp_path / "in.npz"),
                  str(tmp_path / "out.npz"))
    return dict(np.load(tmp_path / "out.npz"))


def test_builder_savedmodel_loads_in_tensorflow_with_our_outputs(tmp_path):
    python = require_tensorflow("test_builder_savedmodel_loads_in_tensorflow_with_our_outputs")
    rng = np.random.default_rng(3)
    x_val = rng.normal(size=(5, 4)).astype(np.float32)
    export_dir = tmp_path / "model"
    with tf.Graph().as_default(), tf.Session() as sess:
        x, w, b, logits, probs, label = _mlp_graph(rng)
        sess.run(tf.global_variables_initializer())
        sess.run(w.assign(w * 2.0))  # saved values differ from the initial ones
        ours = dict(zip(["logits", "probs", "label"], sess.run([logits, probs, label], {x: x_val})))
        builder = tf.saved_model.builder.SavedModelBuilder(str(export_dir))
        sig = tf.saved_model.signature_def_utils.predict_signature_def(
            inputs={"x": x}, outputs={"logits": logits, "probs": probs, "label": label})
        builder.add_meta_graph_and_variables(sess, [tf.saved_model.tag_constants.SERVING],
                                             signature_def_map={"serving_default": sig})
        builder.add_meta_graph([tf.saved_model.tag_constants.TRAINING], signature_def_map={"predict": sig})
        builder.save()
    assert sorted(os.listdir(export_dir)) == ["saved_model.pb", "variables"]
    assert sorted(os.listdir(export_dir / "variables")) == ["variables.data-00000-of-00001", "variables.index"]
    for tags, key in ((["serve"], "serving_default"), (["train"], "predict")):
        theirs = _tf_outputs(python, export_dir, tags, key, {"x": x_val}, tmp_path)
        assert sorted(theirs) == sorted(ours)
        for k in ours:
            np.testing.assert_allclose(theirs[k], ours[k], rtol=1e-5, atol=1e-6, err_msg=k)
    # And back into tensorweave.
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], str(export_dir))
        inputs, outputs = tf.saved_model.signature_tensors(mg, "serving_default")
        np.testing.assert_allclose(sess.run(outputs["probs"], {inputs["x"]: x_val}), ours["probs"], rtol=1e-6)


def test_simple_save_loads_in_tensorflow_with_our_outputs(tmp_path):
    python = require_tensorflow("test_simple_save_loads_in_tensorflow_with_our_outputs")
    a_val = np.arange(6, dtype=np.float64).reshape(2, 3)
    with tf.Graph().as_default(), tf.Session() as sess:
        a = tf.placeholder(tf.float64, [2, 3], name="a")
        k = tf.Variable(np.float64(-1.5), name="k")
        out = tf.reduce_sum(tf.square(a) * k, axis=1, name="out")
        sess.run(tf.global_variables_initializer())
        ours = sess.run(out, {a: a_val})
        tf.saved_model.simple_save(sess, str(tmp_path / "simple"), inputs={"a": a}, outputs={"out": out})
    theirs = _tf_outputs(python, tmp_path / "simple", ["serve"], "serving_default", {"a": a_val}, tmp_path)
    np.testing.assert_array_equal(theirs["out"], ours)


def test_builder_refuses_a_non_empty_export_directory_as_tensorflow(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(AssertionError, match="Export directory .* already exists, and isn't empty"):
        tf.saved_model.builder.SavedModelBuilder(str(tmp_path))
    tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "new"))  # absent or empty: fine
    with pytest.raises(AssertionError, match="add_meta_graph_and_variables"):
        tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "new2")).add_meta_graph(["serve"])


def _saved_model_dir(tmp_path):
    export_dir = tmp_path / "m"
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [2], name="x")
        v = tf.Variable(np.array([2.0, 0.5], np.float32), name="v")
        y = tf.multiply(x, v, name="y")
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, str(export_dir), inputs={"x": x}, outputs={"y": y})
    return export_dir


def _ours_error(export_dir, tags):
    with tf.Graph().as_default(), tf.Session() as sess:
        try:
            tf.saved_model.loader.load(sess, tags, str(export_dir))
        except Exception as e:  # noqa: BLE001 - the error is what is compared.
            return "%s: %s" % (type(e).__name__, e)
    return "loaded"


def test_wrong_tags_and_missing_file_errors_equal_tensorflows(tmp_path):
    python = require_tensorflow("test_wrong_tags_and_missing_file_errors_equal_tensorflows")
    export_dir = _saved_model_dir(tmp_path)
    for d, tags in ((export_dir, ["serve", "gpu"]), (export_dir, ["train"]), (tmp_path / "nothing", ["serve"])):
        ours = _ours_error(d, tags)
        theirs = run_tf_script(python, "saved_model_error.py", str(d), ",".join(tags)).strip().splitlines()[-1]
        assert ours == theirs
    assert "available tags '[{'serve'}]'" in _ours_error(export_dir, ["train"])


def test_corrupt_saved_model_is_data_loss_naming_the_file(tmp_path):
    export_dir = _saved_model_dir(tmp_path)
    pb = export_dir / "saved_model.pb"
    data = pb.read_bytes()
    pb.write_bytes(data[: len(data) // 2])
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.DataLossError, match="saved_model.pb"):
            tf.saved_model.loader.load(sess, ["serve"], str(export_dir))
    pb.write_bytes(data)
    os.remove(export_dir / "variables" / "variables.index")
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.NotFoundError, match="variables.index"):
            tf.saved_model.loader.load(sess, ["serve"], str(export_dir))


def test_unknown_signature_key_lists_the_signatures(tmp_path):
    export_dir = _saved_model_dir(tmp_path)
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], str(export_dir))
        with pytest.raises(KeyError, match=r"'predict' is not in the MetaGraph; it has: \['serving_default'\]"):
            tf.saved_model.signature_tensors(mg, "predict")


def test_maybe_saved_model_directory(tmp_path):
    assert not tf.saved_model.maybe_saved_model_directory(str(tmp_path))
    assert tf.saved_model.maybe_saved_model_directory(str(_saved_model_dir(tmp_path)))


def test_tw_run_serves_our_saved_model_by_signature_keys(tmp_path):
    import subprocess

    from tf_peer import BUILD_DIR
    export_dir = _saved_model_dir(tmp_path)  # y = x * v, v = [2, 0.5]
    tw = os.path.join(BUILD_DIR, "tools", "tw")
    done = subprocess.run([tw, "run", "--saved_model", str(export_dir), "--feed", "x=[3,-2]", "--fetch", "y"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "y = float32 [2] [6 -1]\n"


def test_main_op_runs_after_restore_in_both_loaders(tmp_path):
    python = require_tensorflow("test_main_op_runs_after_restore_in_both_loaders")
    export_dir = tmp_path / "main_op"
    x_val = np.array([1.0, 2.0], np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [2], name="x")
        c = tf.Variable(np.float32(0.5), name="c")
        y = tf.add(x, c, name="y")
        sess.run(tf.global_variables_initializer())
        # Saved as 0.5; the main op sets 5 once the variables are restored.
        main_op = tf.group(c.assign(5.0), name="main_op")
        builder = tf.saved_model.builder.SavedModelBuilder(str(export_dir))
        builder.add_meta_graph_and_variables(
            sess, ["serve"], main_op=main_op,
            signature_def_map={"serving_default": tf.saved_model.predict_signature_def({"x": x}, {"y": y})})
        builder.save()
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], str(export_dir))
        inputs, outputs = tf.saved_model.signature_tensors(mg, "serving_default")
        ours = sess.run(outputs["y"], {inputs["x"]: x_val})
    np.testing.assert_array_equal(ours, x_val + 5.0)
    theirs = _tf_outputs(python, export_dir, ["serve"], "serving_default", {"x": x_val}, tmp_path)
    np.testing.assert_array_equal(theirs["y"], ours)
    # And the C++ loader (tw run) runs it too.
    import subprocess

    from tf_peer import BUILD_DIR
    done = subprocess.run([os.path.join(BUILD_DIR, "tools", "tw"), "run", "--saved_model", str(export_dir), "--feed",
                           "x=[1,2]", "--fetch", "y"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "y = float32 [2] [6 7]\n"


def test_text_saved_model_loads_in_both(tmp_path):
    python = require_tensorflow("test_text_saved_model_loads_in_both")
    export_dir = tmp_path / "text"
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.int32, [3], name="x")
        k = tf.Variable(np.array([1, -2, 3], np.int32), name="k")
        y = tf.multiply(x, k, name="y")
        sess.run(tf.global_variables_initializer())
        builder = tf.saved_model.builder.SavedModelBuilder(str(export_dir))
        builder.add_meta_graph_and_variables(
            sess, ["serve"], signature_def_map={"s": tf.saved_model.predict_signature_def({"x": x}, {"y": y})})
        assert builder.save(as_text=True).endswith("saved_model.pbtxt")
    x_val = np.array([4, 5, 6], np.int32)
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], str(export_dir))
        inputs, outputs = tf.saved_model.signature_tensors(mg, "s")
        np.testing.assert_array_equal(sess.run(outputs["y"], {inputs["x"]: x_val}), [4, -10, 18])
    theirs = _tf_outputs(python, export_dir, ["serve"], "s", {"x": x_val}, tmp_path)
    np.testing.assert_array_equal(theirs["y"], [4, -10, 18])
