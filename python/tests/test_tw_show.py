"""`tw show` (tools/tw_show.cc) through the real binary on files TensorFlow wrote
(tests/data): SavedModel signatures line for line as TensorFlow's `saved_model_cli show --all`
prints them, placeholders and variables as TensorFlow imports them, checkpoints as
tf.train.list_variables lists them (tf_side/show_files.py), and bad files refused in one line."""
import json
import os
import subprocess

import numpy as np
import pytest

from tensorweave.proto import graph_pb2
from tf_peer import BUILD_DIR, require_tensorflow, run_tf_script

TW = os.path.join(BUILD_DIR, "tools", "tw")
DATA = os.path.join(os.environ.get("TW_SOURCE_DIR", os.path.join(BUILD_DIR, "..")), "tests", "data")

SAVED_MODELS = ["tf_saved_models/builder", "tf_saved_models/simple", "tf_saved_models/tf2_module",
                "tf_saved_models/tf2_two_heads", "tf_freeze/res_mlp_saved_model"]
GRAPHS = ["tf_graphdefs/mlp_inference.pb", "tf_graphdefs/regression_training.pb", "tf_graphdefs/seed_mean.pb",
          "tf_freeze/ref_mlp.pb", "tf_freeze/res_mlp.pb", "tf_freeze/res_mlp_frozen_tf.pb",
          "tf_freeze/ref_mlp_ckpt/model.ckpt.meta", "tf_saved_models/meta/model.ckpt-3.meta",
          "tf_control_flow/while_collatz.pb"]
CHECKPOINTS = ["tf_checkpoints/model.ckpt-7", "tf_checkpoints/partitioned.ckpt-1", "tf_freeze/ref_mlp_ckpt/model.ckpt",
               "tf_saved_models/meta/model.ckpt-3"]


def tw(*args):
    return subprocess.run([TW, *args], capture_output=True, text=True, timeout=120)


def show(path):
    r = tw("show", path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    return r.stdout.splitlines()


@pytest.fixture(scope="module")
def tf_view():
    python = require_tensorflow("test_tw_show")
    items = ([f"saved_model:{os.path.join(DATA, p)}" for p in SAVED_MODELS] +
             [f"graph:{os.path.join(DATA, p)}" for p in GRAPHS] +
             [f"checkpoint:{os.path.join(DATA, p)}" for p in CHECKPOINTS])
    return json.loads(run_tf_script(python, "show_files.py", *items).splitlines()[-1])


def section(lines, header):
    """The lines indented under `header` (a line ending in ':'), without their indent."""
    start = lines.index(header)
    indent = len(lines[start + 1]) - len(lines[start + 1].lstrip())
    out = []
    for line in lines[start + 1:]:
        if len(line) - len(line.lstrip()) < indent:
            break
        out.append(line.strip())
    return out


@pytest.mark.parametrize("path", SAVED_MODELS)
def test_saved_model_signatures_as_saved_model_cli_prints_them(tf_view, path):
    full = os.path.join(DATA, path)
    ours = show(full)
    assert ours[0] == f"SavedModel: {full}"
    # Ours without its graph summaries; TensorFlow's without its op sets and TF2 functions
    # (both are listed in another form by the summary).
    kept, skipping = [], False
    for line in ours[1:]:
        if line.startswith("Graph of tag-set"):
            skipping = True
        elif line.startswith("MetaGraphDef with tag-set") or line == "":
            skipping = False  # a summary has no blank line: the next tag set begins
        if not skipping:
            kept.append(line)
    theirs = tf_view[f"saved_model:{full}"].split("\nConcrete Functions:")[0].splitlines()
    theirs = [line for line in theirs if not line.startswith("The MetaGraph with tag set")]
    assert [l for l in kept if l] == [l for l in theirs if l]
    assert kept == theirs[:len(kept)]


@pytest.mark.parametrize("path", GRAPHS)
def test_graph_inputs_and_variables_as_tensorflow_imports_them(tf_view, path):
    full = os.path.join(DATA, path)
    lines = show(full)
    view = tf_view[f"graph:{full}"]
    if full.endswith(".meta"):
        assert lines[0] == f"MetaGraph: {full}"
        lines = [line[2:] if line.startswith("  ") else line for line in lines[lines.index("Graph of tag-set '':") + 1:]]
    else:
        assert lines[0] == f"GraphDef: {full}"
    assert f"nodes: {view['nodes']}" in lines
    # The saver's filename placeholders are not inputs a user feeds (they are PlaceholderWithDefault).
    expected_inputs = [f"{n}: {d} {s}" for n, d, s in view["placeholders"]] or ["(none)"]
    assert section(lines, "inputs:") == expected_inputs
    variables = [f"{n}: {d} {s} {b} bytes" for n, d, s, b in view["variables"]]
    got = [line.rsplit(" (", 1)[0] for line in section(lines, "variables:")]
    if variables:
        assert got == variables + [f"total: {len(variables)} variables, {sum(v[3] for v in view['variables'])} bytes"]
    else:
        assert got == ["(none)"]
    # The ops marked missing are exactly those `tw ops` does not list.
    registered = set(tw("ops").stdout.split())
    for line in section(lines, "ops:"):
        op = line.split()[1]
        assert line.endswith("(not in this build)") == (op not in registered), line


def test_outputs_and_histogram_of_known_graphs():
    lines = show(os.path.join(DATA, "tf_freeze", "res_mlp_frozen_tf.pb"))
    assert section(lines, "outputs:") == ["output (Identity)"]
    assert section(lines, "ops:") == ["5 Identity", "4 Const", "2 AddV2", "2 MatMul", "1 Placeholder", "1 Relu"]
    assert section(lines, "variables:") == ["(none)"]
    # A training graph: the loss and train op are outputs; initializers, savers, Assigns are not.
    lines = show(os.path.join(DATA, "tf_freeze", "ref_mlp.pb"))
    assert section(lines, "outputs:") == [
        "loss (Mean)", "gradients/sub_grad/tuple/control_dependency_1 (Identity)", "gradients/add_1_grad/Shape (Shape)",
        "gradients/add_grad/Shape (Shape)", "gradients/MatMul_grad/tuple/control_dependency (Identity)"]
    gd = graph_pb2.GraphDef()
    gd.ParseFromString(open(os.path.join(DATA, "tf_freeze", "ref_mlp.pb"), "rb").read())
    consumed = {i.lstrip("^").split(":")[0] for n in gd.node for i in n.input}
    for line in section(lines, "outputs:"):
        name = line.split(" (")[0]
        assert name not in consumed and not name.startswith("save/")


def test_ops_this_build_lacks_are_marked(tmp_path):
    gd = graph_pb2.GraphDef()
    x = gd.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = 1
    y = gd.node.add(name="y", op="FancyNewOp", input=["x"])
    gd.node.add(name="z", op="FancyNewOp", input=["y"])
    path = tmp_path / "g.pb"
    path.write_bytes(gd.SerializeToString())
    lines = show(str(path))
    assert section(lines, "inputs:") == ["x: float32 <unknown>"]
    assert section(lines, "outputs:") == ["z (FancyNewOp)"]
    assert section(lines, "ops:") == ["2 FancyNewOp  (not in this build)", "1 Placeholder"]
    assert "ops this build lacks: FancyNewOp" in lines


@pytest.mark.parametrize("path", CHECKPOINTS)
def test_checkpoint_tensors_as_tensorflow_lists_them(tf_view, path):
    full = os.path.join(DATA, path)
    lines = show(full)
    assert lines[0] == f"Checkpoint: {full}"
    expected = []
    total = 0
    for name, dtype, shape in tf_view[f"checkpoint:{full}"]:
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype if dtype != "bool" else np.bool_).itemsize
        total += nbytes
        expected.append(f"{name}: {dtype} [{','.join(map(str, shape))}] {nbytes} bytes")
    assert [line.strip() for line in lines[1:]] == expected + [f"total: {len(expected)} tensors, {total} bytes"]
    assert show(full + ".index") == lines


def test_bad_files_get_one_line(tmp_path):
    garbage = tmp_path / "garbage.pb"
    garbage.write_bytes(bytes(range(256)) * 3)
    truncated = tmp_path / "truncated.pb"
    truncated.write_bytes(open(os.path.join(DATA, "tf_freeze", "ref_mlp.pb"), "rb").read()[:501])
    bad_text = tmp_path / "bad.pbtxt"
    bad_text.write_text('node {\n  name: "x"\n  op: "Placeholder"\n  bogus_field: 3\n}\n')
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    cases = [
        (str(garbage), f"tw show: {garbage}: not a valid binary GraphDef (truncated or not a GraphDef)"),
        (str(truncated), f"tw show: {truncated}: not a valid binary GraphDef (truncated or not a GraphDef)"),
        (str(bad_text), f"tw show: {bad_text}: not a valid GraphDef text: line 4 column 14: Message type "
                        "\"tensorweave.NodeDef\" has no field named \"bogus_field\"."),
        (str(tmp_path / "missing.pb"), f"tw show: cannot open '{tmp_path / 'missing.pb'}'"),
        (str(empty_dir), f"tw show: '{empty_dir}' is neither a SavedModel (no saved_model.pb or saved_model.pbtxt) "
                         "nor a checkpoint directory (no checkpoint file)"),
    ]
    for path, message in cases:
        r = tw("show", path)
        assert r.returncode == 1, path
        assert r.stderr.splitlines() == [message]
    r = tw("show")
    assert r.returncode == 2 and r.stderr.startswith("tw show: give one FILE_OR_DIR")
    r = tw("show", "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: tw show FILE_OR_DIR")


def test_damaged_files_never_crash(tmp_path):
    """Every cut of a GraphDef, a SavedModel and a checkpoint index, and flipped bytes: each
    command exits 0 (a prefix can be a valid message) or 1 with one line, never by a signal."""
    import shutil
    rng = np.random.default_rng(0)
    graph = open(os.path.join(DATA, "tf_freeze", "res_mlp.pb"), "rb").read()
    sm_src = os.path.join(DATA, "tf_freeze", "res_mlp_saved_model")
    sm = tmp_path / "sm"
    shutil.copytree(sm_src, sm)
    sm_bytes = open(os.path.join(sm_src, "saved_model.pb"), "rb").read()
    ckpt_src = os.path.join(DATA, "tf_freeze", "res_mlp_ckpt", "model.ckpt")
    ckpt = tmp_path / "model.ckpt"
    shutil.copy(ckpt_src + ".data-00000-of-00001", str(ckpt) + ".data-00000-of-00001")
    index = open(ckpt_src + ".index", "rb").read()

    def check(r):
        assert r.returncode in (0, 1), (r.returncode, r.stderr)
        if r.returncode:
            assert len(r.stderr.splitlines()) == 1, r.stderr

    def damaged(data):
        cuts = [data[:n] for n in sorted(set(rng.integers(0, len(data), 12).tolist()))]
        flips = []
        for _ in range(6):
            b = bytearray(data)
            for i in rng.integers(0, len(b), 4):
                b[i] ^= 0xFF
            flips.append(bytes(b))
        return cuts + flips

    g = tmp_path / "g.pb"
    for data in damaged(graph):
        g.write_bytes(data)
        check(tw("show", str(g)))
        check(tw("convert", str(g), str(tmp_path / "g.pbtxt")))
        check(tw("freeze", "--input_graph", str(g), "--input_checkpoint", ckpt_src, "--output_node_names", "output",
                 "--output_graph", str(tmp_path / "f.pb")))
    for data in damaged(sm_bytes):
        (sm / "saved_model.pb").write_bytes(data)
        check(tw("show", str(sm)))
        check(tw("freeze", "--input_saved_model_dir", str(sm), "--output_node_names", "output",
                 "--output_graph", str(tmp_path / "f.pb")))
    for data in damaged(index):
        (tmp_path / "model.ckpt.index").write_bytes(data)
        check(tw("show", str(ckpt)))
        check(tw("freeze", "--input_graph", os.path.join(DATA, "tf_freeze", "res_mlp.pb"), "--input_checkpoint",
                 str(ckpt), "--output_node_names", "output", "--output_graph", str(tmp_path / "f.pb")))


def test_meta_graph_under_another_name_is_recognised(tmp_path):
    src = os.path.join(DATA, "tf_freeze", "res_mlp_ckpt", "model.ckpt.meta")
    renamed = tmp_path / "exported.pb"
    renamed.write_bytes(open(src, "rb").read())
    lines = show(str(renamed))
    assert lines[0] == f"MetaGraph: {renamed}"
    assert lines[1:] == show(src)[1:]


def test_checkpoint_directory_shows_its_latest_checkpoint():
    directory = os.path.join(DATA, "tf_checkpoints")
    assert show(directory) == show(os.path.join(directory, "model.ckpt-7"))
