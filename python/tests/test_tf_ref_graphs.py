"""GraphDefs TensorFlow wrote with TF1's reference variables (VariableV2, Assign, Apply*,
ScatterUpdate, SaveV2 ...) run in tensorweave as they are, lowered to resource variables on
import, and give what TensorFlow computed; their saver subgraph restores TensorFlow's
checkpoint and writes one TensorFlow reads.

Fixtures: tests/data/tf_ref_graphs/, written by its generate.py with the pinned TensorFlow
(MANIFEST.txt); the format of NAME.npz is described there."""
import glob
import os
import shutil

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

FIXTURES = os.path.join(os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                        "tests", "data", "tf_ref_graphs")
NAMES = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(FIXTURES, "*.pb")))
SAVERS = ["saver_plain", "saver_sharded", "saver_two_devices"]
RUNS = [n for n in NAMES if n not in SAVERS]
OPTIMIZERS = ["adagrad", "adam", "gradient_descent", "momentum", "momentum_nesterov", "rmsprop", "rmsprop_centered"]


def test_the_fixtures_are_there():
    assert RUNS == ["embedding_scatter", "embedding_training", "init_check"] + ["linreg_" + o for o in OPTIMIZERS]
    assert all(n in NAMES for n in SAVERS)
    assert "written by TensorFlow 2." in open(os.path.join(FIXTURES, "MANIFEST.txt")).read()


def _load(name):
    data = np.load(os.path.join(FIXTURES, name + ".npz"))
    g = tf.Graph()
    with open(os.path.join(FIXTURES, name + ".pb"), "rb") as f:
        g.import_graph_def(f.read())
    return data, g


def _session(g, data):
    """A session with as many CPU devices as TensorFlow's had (variables pinned to CPU:1)."""
    return tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": int(data["cpus"])}))


def _entries(data, prefix):
    return [(k[len(prefix):], data[k]) for k in sorted(data.files) if k.startswith(prefix)]


def _expect_equal(value, expected, what):
    value = np.asarray(value)
    if expected.dtype.kind == "S":  # strings come back as bytes objects
        assert value.shape == expected.shape and [bytes(v) for v in value.ravel()] == list(expected.ravel()), what
        return
    assert value.dtype == expected.dtype and value.shape == expected.shape, (what, value.dtype, value.shape)
    if np.issubdtype(expected.dtype, np.floating):
        # Same float32 arithmetic in another order: a few ulps after 12 steps of training.
        np.testing.assert_allclose(value, expected, rtol=2e-6, atol=1e-6, err_msg=what)
    else:
        np.testing.assert_array_equal(value, expected, err_msg=what)


@pytest.mark.parametrize("name", RUNS)
def test_tensorflow_ref_variable_graph_gives_tensorflows_values(name):
    data, g = _load(name)
    t = g.get_tensor_by_name
    with _session(g, data) as sess:
        for k, expected in _entries(data, "prefetch:"):
            _expect_equal(sess.run(t(k)), expected, "before init: " + k)
        for op in data["init"]:
            sess.run(g.get_operation_by_name(str(op)))
        stepfeeds = _entries(data, "stepfeed:")
        for i in range(len(stepfeeds[0][1]) if stepfeeds else 0):
            sess.run(g.get_operation_by_name(str(data["train"])), {t(k): v[i] for k, v in stepfeeds})
        for op in data["sequence"]:
            sess.run(g.get_operation_by_name(str(op)))
        fetches = _entries(data, "fetch:")
        assert fetches
        got = sess.run([t(k) for k, _ in fetches], {t(k): v for k, v in _entries(data, "fetchfeed:")})
        for (k, expected), value in zip(fetches, got):
            _expect_equal(value, expected, k)
        afters = sorted(_entries(data, "after"), key=lambda kv: int(kv[0].split(":", 1)[0]))
        for k, expected in afters:  # an update's output: the variable after it, one run each
            _expect_equal(sess.run(t(k.split(":", 1)[1])), expected, k)


def test_ref_ops_became_resource_ops_keeping_their_names():
    _, g = _load("linreg_adam")
    assert g.get_operation_by_name("w/handle").type == "VarHandleOp"
    assert g.get_operation_by_name("w").type == "ReadVariableOp"  # fetching "w:0" gives the value, as in TF1
    assert g.get_operation_by_name("w/read").type == "ReadVariableOp"
    assert g.get_operation_by_name("w/Assign").type == "AssignVariableOp"
    assert g.get_operation_by_name("train/update_w/ApplyAdam").type == "ReadVariableOp"
    assert g.get_operation_by_name("train/update_w/ApplyAdam/update").type == "ResourceApplyAdam"
    assert g.get_operation_by_name("train").type == "AssignAddVariableOp"  # the global step


def _variables(data):
    return [k for k, _ in _entries(data, "ckpt:")]


@pytest.mark.parametrize("name", SAVERS)
def test_graphs_saver_restores_tensorflows_checkpoint(name):
    data, g = _load(name)
    t = g.get_tensor_by_name
    filename = t(str(data["saver:filename"]))
    with _session(g, data) as sess:
        sess.run(g.get_operation_by_name("init"))
        sess.run(g.get_operation_by_name(str(data["saver:restore"])),
                 {filename: os.path.join(FIXTURES, name + "_ckpt", "model.ckpt")})
        for v, expected in _entries(data, "ckpt:"):
            _expect_equal(sess.run(t(v + "/read:0")), expected, v)
            _expect_equal(sess.run(t(v + ":0")), expected, v + ":0")  # the variable's own name, as TF1 fetches it


@pytest.mark.parametrize("name", SAVERS)
def test_graphs_save_op_writes_a_checkpoint_tensorflow_reads(name, tmp_path):
    python = require_tensorflow("test_graphs_save_op_writes_a_checkpoint_tensorflow_reads")
    data, g = _load(name)
    t = g.get_tensor_by_name
    prefix = str(tmp_path / "out" / "model.ckpt")  # the directory does not exist yet: SaveV2 makes it
    with _session(g, data) as sess:
        sess.run(g.get_operation_by_name("init"))
        sess.run(g.get_operation_by_name(str(data["set2"])))
        ours = {v: sess.run(t(v + "/read:0")) for v in _variables(data)}
        written = sess.run(t(str(data["saver:save"])), {t(str(data["saver:filename"])): prefix})
    assert bytes(written) == prefix.encode()
    files = sorted(os.listdir(tmp_path / "out"))
    shards = sorted(os.listdir(os.path.join(FIXTURES, name + "_ckpt")))  # as many data shards as TF wrote
    assert files == shards, files  # and a sharded save's temporary directory is gone
    run_tf_script(python, "checkpoint_values.py", prefix, str(tmp_path / "tf.npz"))
    theirs = np.load(tmp_path / "tf.npz")
    assert sorted(k[5:] for k in theirs.files if k.startswith("read:")) == sorted(ours)
    for v, value in ours.items():
        _expect_equal(theirs["read:" + v], np.asarray(value), v)
        # set2's values, not the initial ones nor the committed checkpoint's.
        assert not np.array_equal(value, data["ckpt:" + v]), v


def _flip(path, offset):
    raw = bytearray(open(path, "rb").read())
    raw[offset] ^= 0x40
    open(path, "wb").write(bytes(raw))


@pytest.mark.parametrize("damage", ["data_flip", "data_truncated", "index_flip", "index_truncated"])
def test_a_damaged_checkpoint_is_data_loss_and_no_variable_changes(damage, tmp_path):
    data, g = _load("saver_plain")
    t = g.get_tensor_by_name
    shutil.copytree(os.path.join(FIXTURES, "saver_plain_ckpt"), tmp_path / "ckpt")
    prefix = str(tmp_path / "ckpt" / "model.ckpt")
    kind, how = damage.split("_")
    path = prefix + (".data-00000-of-00001" if kind == "data" else ".index")
    size = os.path.getsize(path)
    if how == "flip":
        _flip(path, size // 2 if kind == "data" else 10)
    else:
        os.truncate(path, size - 7)
    with tf.Session(graph=g) as sess:
        sess.run(g.get_operation_by_name("init"))
        before = {v: sess.run(t(v + "/read:0")) for v in _variables(data)}
        with pytest.raises(tf.errors.DataLossError, match=os.path.basename(path).replace(".", r"\.")):
            sess.run(g.get_operation_by_name(str(data["saver:restore"])), {t(str(data["saver:filename"])): prefix})
        for v, value in before.items():
            np.testing.assert_array_equal(sess.run(t(v + "/read:0")), value, err_msg=v)


def test_restoring_from_a_missing_checkpoint_is_not_found():
    _, g = _load("saver_plain")
    with tf.Session(graph=g) as sess:
        sess.run(g.get_operation_by_name("init"))
        with pytest.raises(tf.errors.NotFoundError, match="no_such_checkpoint. not found"):
            sess.run(g.get_operation_by_name("save/restore_all"),
                     {g.get_tensor_by_name("save/Const:0"): os.path.join(FIXTURES, "no_such_checkpoint")})


STRING_CASES = [
    {"op": "ShardedFilename", "args": ["/tmp/ckpt_temp/part", 0, 1]},
    {"op": "ShardedFilename", "args": ["a/b", 12, 345]},
    {"op": "ShardedFilename", "args": ["x", 123456, 1234567]},
    {"op": "ShardedFilename", "args": ["x", 3, 2]},  # TensorFlow formats what it is given
    {"op": "ShardedFilespec", "args": ["/tmp/model.ckpt", 3]},
    {"op": "ShardedFilespec", "args": ["m", 100000]},
    {"op": "StaticRegexFullMatch", "args": ["s3://bucket/model", "^s3://.*"]},
    {"op": "StaticRegexFullMatch", "args": ["/tmp/s3://model", "^s3://.*"]},
    {"op": "StaticRegexFullMatch", "args": ["abc123", "[a-c]+[0-9]{3}"]},
    {"op": "StaticRegexFullMatch", "args": ["abc1234", "[a-c]+[0-9]{3}"]},
]


def test_saver_string_ops_match_tensorflow(tmp_path):
    import json
    python = require_tensorflow("test_saver_string_ops_match_tensorflow")
    (tmp_path / "cases.json").write_text(json.dumps(STRING_CASES))
    theirs = json.loads(run_tf_script(python, "saver_string_ops.py", str(tmp_path / "cases.json")).splitlines()[-1])
    for case, expected in zip(STRING_CASES, theirs):
        g = tf.Graph()
        with g.as_default():
            args = case["args"]
            if case["op"] == "StaticRegexFullMatch":
                node = g.create_op(case["op"], [tf.constant(args[0])], {"pattern": args[1]})
            else:
                node = g.create_op(case["op"], [tf.constant(args[0])] + [tf.constant(np.int32(a)) for a in args[1:]], {})
            with tf.Session(graph=g) as sess:
                value = sess.run(node.outputs[0])
        value = bool(value) if case["op"] == "StaticRegexFullMatch" else bytes(value).decode()
        assert expected == {"value": value}, (case, value, expected)



def test_a_broken_ref_graph_is_refused_naming_the_node_and_the_graph_is_unchanged():
    from tensorweave.proto import graph_pb2
    with open(os.path.join(FIXTURES, "linreg_gradient_descent.pb"), "rb") as f:
        def_ = graph_pb2.GraphDef.FromString(f.read())
    assign = next(n for n in def_.node if n.name == "w/Assign")
    assign.input[0] = assign.input[1]  # the initial value: a Const, not a variable
    g = tf.Graph()
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"node 'w/Assign' \(Assign\): input 0 \('.*'\) must be a reference variable"):
        g.import_graph_def(def_.SerializeToString())
    assert len(g.get_operations()) == 0
    # A dtype that differs from the variable's.
    def_ = graph_pb2.GraphDef.FromString(open(os.path.join(FIXTURES, "linreg_gradient_descent.pb"), "rb").read())
    step = next(n for n in def_.node if n.op == "AssignAdd")
    step.attr["T"].type = 3  # int32, on an int64 variable
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"node '{step.name}' \\(AssignAdd\\): input 0 \\('global_step'\\) "
                                                            "is a int64 variable but T is int32"):
        tf.Graph().import_graph_def(def_.SerializeToString())


@pytest.fixture
def two_task_cluster():
    from conftest import ServerProcesses, free_port
    addresses = ["localhost:%d" % free_port(), "localhost:%d" % free_port()]
    servers = ServerProcesses("local|" + ";".join(addresses), "local", 2)
    yield addresses
    servers.stop()


def test_ref_variables_on_another_task_train_as_in_tensorflow(two_task_cluster):
    # TensorFlow's Momentum graph with its variables moved to task 1 (a parameter server):
    # the lowered updates, reads and slots follow them there; the values are TensorFlow's.
    from tensorweave.proto import graph_pb2
    data = np.load(os.path.join(FIXTURES, "linreg_momentum.npz"))
    with open(os.path.join(FIXTURES, "linreg_momentum.pb"), "rb") as f:
        def_ = graph_pb2.GraphDef.FromString(f.read())
    moved = [n.name for n in def_.node if n.op == "VariableV2"]
    assert sorted(moved) == ["b", "b/Momentum", "global_step", "w", "w/Momentum"]
    # As tf.train.replica_device_setter places them: the variables and what TensorFlow
    # colocates with them (their assigns and updates) on the ps task, the rest on the worker.
    ref_ops = {"VariableV2", "Assign", "AssignAdd", "ApplyMomentum"}
    for n in def_.node:
        with_var = any(c.decode() in ["loc:@" + v for v in moved] for c in n.attr["_class"].list.s)
        n.device = "/job:local/task:1" if n.op in ref_ops or with_var else "/job:local/task:0"
    g = tf.Graph()
    g.import_graph_def(def_.SerializeToString())
    t = g.get_tensor_by_name
    with tf.Session("grpc://" + two_task_cluster[0], graph=g) as sess:
        sess.run(g.get_operation_by_name("init"))
        stepfeeds = _entries(data, "stepfeed:")
        for i in range(len(stepfeeds[0][1])):
            sess.run(g.get_operation_by_name("train"), {t(k): v[i] for k, v in stepfeeds})
        fetches = _entries(data, "fetch:")
        got = sess.run([t(k) for k, _ in fetches], {t(k): v for k, v in _entries(data, "fetchfeed:")})
    for (k, expected), value in zip(fetches, got):
        _expect_equal(value, expected, k)
    with tf.Session("grpc://" + two_task_cluster[1], graph=g) as other:  # the variables live on task 1
        _expect_equal(other.run(t("w:0")), data["fetch:w/read:0"], "w on task 1")


def test_a_tensorflow_client_with_ref_variables_trains_saves_and_restores_on_tensorweave(two_task_cluster,
                                                                                         tmp_path):
    import json
    python = require_tensorflow("test_a_tensorflow_client_with_ref_variables_trains_saves_and_restores_on_tensorweave")
    out = run_tf_script(python, "ref_variable_client.py", "grpc://" + two_task_cluster[0], str(tmp_path))
    got = json.loads(out.strip().splitlines()[-1])
    local, remote = got["local"], got["remote"]
    np.testing.assert_allclose(remote["w"], local["w"], rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(remote["restored_w"], local["w"], rtol=2e-6, atol=1e-6)
    for key in ("step", "restored_step", "uninitialized", "uninitialized_after"):
        assert remote[key] == local[key], key
    assert local["uninitialized"] == ["extra"] and local["restored_step"] == 5
    # A sharded save writes one data shard per device that holds variables: two tasks here.
    assert local["files"] == ["model.ckpt.data-00000-of-00001", "model.ckpt.index"]
    assert remote["files"] == ["model.ckpt.data-00000-of-00002", "model.ckpt.data-00001-of-00002",
                               "model.ckpt.index"], remote["files"]


def test_every_flipped_byte_of_tensorflows_checkpoint_is_data_loss_or_harmless(tmp_path):
    # Through the graph's own restore_all: each flip is caught (DataLoss naming the file,
    # every variable as it was) or lands in bytes nobody reads (block padding: TF's values).
    data, g = _load("saver_plain")
    t = g.get_tensor_by_name
    source = os.path.join(FIXTURES, "saver_plain_ckpt")
    prefix = str(tmp_path / "model.ckpt")
    restore = g.get_operation_by_name(str(data["saver:restore"]))
    filename = t(str(data["saver:filename"]))
    caught = {".index": 0, ".data-00000-of-00001": 0}
    harmless = dict(caught)
    with _session(g, data) as sess:
        sess.run(g.get_operation_by_name("init"))
        initial = {v: sess.run(t(v + ":0")) for v in _variables(data)}
        for suffix in (".index", ".data-00000-of-00001"):
            size = os.path.getsize(os.path.join(source, "model.ckpt" + suffix))
            for offset in range(size):
                for name in os.listdir(source):
                    shutil.copy(os.path.join(source, name), tmp_path / name)
                _flip(prefix + suffix, offset)
                try:
                    sess.run(restore, {filename: prefix})
                except tf.errors.DataLossError as e:
                    assert "model.ckpt" + suffix in e.message, (suffix, offset, e.message)
                    for v, value in initial.items():
                        np.testing.assert_array_equal(sess.run(t(v + ":0")), value, err_msg=f"{suffix} {offset}")
                    caught[suffix] += 1
                    continue
                for v, expected in _entries(data, "ckpt:"):
                    _expect_equal(sess.run(t(v + ":0")), expected, f"{v} after a flip at {suffix} {offset}")
                sess.run(g.get_operation_by_name("init"))  # back to the initial values
                harmless[suffix] += 1
    # Every byte of the data shard is under an entry's CRC; the index has padding too.
    assert harmless[".data-00000-of-00001"] == 0 and caught[".data-00000-of-00001"] > 0, (caught, harmless)
    assert caught[".index"] > harmless[".index"], (caught, harmless)
