"""`tw convert` (tools/tw_convert.cc) through the real binary: GraphDefs TensorFlow wrote
(tests/data) to text and back; the text is what TensorFlow's text_format writes and parses to
the same message in TensorFlow (tf_side/graph_text.py); binary -> text -> binary is
byte-identical; bad input gets one line naming the file (and line and column for text)."""
import json
import os
import subprocess

import pytest

from tensorweave.proto import graph_pb2
from tf_peer import BUILD_DIR, require_tensorflow, run_tf_script

TW = os.path.join(BUILD_DIR, "tools", "tw")
DATA = os.path.join(os.environ.get("TW_SOURCE_DIR", os.path.join(BUILD_DIR, "..")), "tests", "data")
# Graphs whose every field our GraphDef models (the function library included), and TF2-era
# ones carrying fields it does not (NodeDef.experimental_type), which the text leaves out with
# a warning.
PLAIN = ["tf_freeze/res_mlp_frozen_tf.pb", "tf_graphdefs/mlp_inference.pb", "tf_graphdefs/seed_mean.pb",
         "tf_control_flow/while_collatz.pb",
         "tf_control_flow/cond_branches.pb", "tf_examples/parse_graph.pb", "tf_ref_graphs/saver_sharded.pb"]
UNMODELLED = {"tf_freeze/ref_mlp.pb": "NodeDef field 7", "tf_graphdefs/regression_training.pb": "NodeDef field 7"}


def tw(*args):
    return subprocess.run([TW, *args], capture_output=True, text=True, timeout=120)


def convert(src, dst, *flags):
    r = tw("convert", str(src), str(dst), *flags)
    assert r.returncode == 0, r.stderr
    return r


def read_graph(path):
    gd = graph_pb2.GraphDef()
    gd.ParseFromString(open(path, "rb").read())
    return gd


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("convert")
    texts = {}
    for i, path in enumerate(PLAIN + list(UNMODELLED)):
        texts[path] = out / f"g{i}.pbtxt"
        r = convert(os.path.join(DATA, path), texts[path])
        assert r.stdout.startswith(f"wrote {texts[path]} (text, {len(read_graph(os.path.join(DATA, path)).node)} nodes")
        if path in UNMODELLED:
            assert r.stderr == ("tw convert: warning: left out of the text, as this build's GraphDef does not model "
                                f"them: {UNMODELLED[path]}\n")
        else:
            assert r.stderr == ""
    return out, texts


def test_text_is_tensorflows_and_parses_back_in_tensorflow(converted):
    out, texts = converted
    python = require_tensorflow("test_tw_convert")
    args = []
    for path in PLAIN:
        args += [os.path.join(DATA, path), str(texts[path])]
    view = json.loads(run_tf_script(python, "graph_text.py", *args).splitlines()[-1])
    for path in PLAIN:
        tf_text, same = view[os.path.join(DATA, path)]
        assert texts[path].read_text() == tf_text, path
        assert same, path


@pytest.mark.parametrize("path", PLAIN + list(UNMODELLED))
def test_binary_text_binary_is_byte_identical(converted, path):
    out, texts = converted
    b = out / (texts[path].stem + ".b.pb")
    c = out / (texts[path].stem + ".c.pbtxt")
    d = out / (texts[path].stem + ".d.pb")
    convert(texts[path], b)
    convert(b, c)
    convert(c, d)
    assert b.read_bytes() == d.read_bytes()
    assert c.read_text() == texts[path].read_text()
    if path in PLAIN:
        # The same message as TensorFlow's file (whose map entries may be in another order).
        assert read_graph(b) == read_graph(os.path.join(DATA, path))
        # binary -> binary is the canonical form: the same bytes as through text.
        e = out / (texts[path].stem + ".e.pb")
        convert(os.path.join(DATA, path), e)
        assert e.read_bytes() == b.read_bytes()


def test_to_flag_overrides_the_extension(tmp_path):
    src = os.path.join(DATA, PLAIN[0])
    convert(src, tmp_path / "g.bin", "--to", "text")
    assert (tmp_path / "g.bin").read_text().startswith("node {")
    convert(tmp_path / "g.bin", tmp_path / "g.txt", "--to=binary")
    assert read_graph(tmp_path / "g.txt") == read_graph(src)


def test_bad_input_gets_one_line(tmp_path):
    bad = tmp_path / "bad.pbtxt"
    bad.write_text('node {\n  name: "x"\n  op: "Const"\n  attr { key: "dtype" value { type: DT_NOPE } }\n}\n')
    unbalanced = tmp_path / "unbalanced.pbtxt"
    unbalanced.write_text('node {\n  name: "x"\n')
    garbage = tmp_path / "garbage.pb"
    garbage.write_bytes(bytes(range(256)) * 2)
    truncated = tmp_path / "truncated.pb"
    truncated.write_bytes(open(os.path.join(DATA, PLAIN[0]), "rb").read()[:300])
    out = str(tmp_path / "out.pb")
    cases = [
        ([str(bad), out], f"tw convert: {bad}: not a valid GraphDef text: line 4 column 45: Unknown enumeration value "
                          "of \"DT_NOPE\" for field \"type\"."),
        ([str(unbalanced), out], f"tw convert: {unbalanced}: not a valid GraphDef text: line 3 column 1: Expected "
                                 "identifier, got: "),
        ([str(garbage), out], f"tw convert: {garbage}: not a valid binary GraphDef (truncated or not a GraphDef)"),
        ([str(truncated), out], f"tw convert: {truncated}: not a valid binary GraphDef (truncated or not a GraphDef)"),
        ([str(tmp_path / "missing.pb"), out], f"tw convert: cannot open '{tmp_path / 'missing.pb'}'"),
        ([os.path.join(DATA, PLAIN[0]), str(tmp_path / "no" / "dir.pb")],
         f"tw convert: cannot write '{tmp_path / 'no' / 'dir.pb'}'"),
    ]
    for args, message in cases:
        r = tw("convert", *args)
        assert r.returncode == 1, args
        assert r.stderr.splitlines() == [message]
    for args, message in [([str(bad)], "tw convert: give IN and OUT (got 1 file names)"),
                          ([str(bad), out, "--to", "json"], "tw convert: --to must be text or binary, not 'json'"),
                          ([str(bad), out, "--bogus"], "tw convert: unknown flag '--bogus'")]:
        r = tw("convert", *args)
        assert r.returncode in (1, 2) and r.stderr.splitlines()[0] == message, r.stderr
    assert not os.path.exists(out)
    r = tw("convert", "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: tw convert IN OUT")


def test_floats_and_doubles_print_as_tensorflows_python_does(tmp_path):
    gd = graph_pb2.GraphDef()
    floats = [0.0, -0.0, 1e-05, 1.5e16, 123456789.0, 0.1, 3.4028235e38, 1e-45, 2.5, 100.0, 1e16, 1e15, 0.0001,
              0.00012345, 7.0e-5, 16777217.0, 1 / 3, float("inf"), float("-inf"), float("nan")]
    c = gd.node.add(name="c", op="Const")
    c.attr["dtype"].type = 1
    c.attr["value"].tensor.dtype = 1
    c.attr["value"].tensor.float_val.extend(floats)
    d = gd.node.add(name="d", op="Const")
    d.attr["dtype"].type = 2
    d.attr["value"].tensor.dtype = 2
    d.attr["value"].tensor.double_val.extend(floats + [0.1 + 0.2, 1e300, 5e-324, 123456789012345678.0])
    gd.node.add(name="e", op="LeakyRelu", input=["c"]).attr["alpha"].f = 0.3
    src = tmp_path / "floats.pb"
    src.write_bytes(gd.SerializeToString())
    text = tmp_path / "floats.pbtxt"
    convert(src, text)
    python = require_tensorflow("test_tw_convert")
    view = json.loads(run_tf_script(python, "graph_text.py", str(src), str(text)).splitlines()[-1])
    tf_text, same = view[str(src)]
    assert text.read_text() == tf_text
    # NaN != NaN, so the message comparison is left to the bytes: text back to binary.
    back = tmp_path / "back.pb"
    convert(text, back)
    again = tmp_path / "again.pb"
    convert(src, again)
    assert back.read_bytes() == again.read_bytes()
