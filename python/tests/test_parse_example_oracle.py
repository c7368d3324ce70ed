"""ParseExample / ParseSingleExample against real TensorFlow: random Examples (all three
list kinds, dense shapes with and without defaults, VarLen of each dtype, empty lists,
missing features, batches of 0, 1 and several) parsed by both, outputs equal exactly;
bad inputs give the same error class, and our message is TensorFlow's."""
import numpy as np

from example_cases import error_text, make_example, random_values, run_ours, run_tf
from tf_peer import require_tensorflow

# key -> spec; "default" present means the feature may be missing.
SPECS = {
    "f_scalar": {"kind": "fixed", "dtype": "float32", "shape": []},
    "f_vec_def": {"kind": "fixed", "dtype": "float32", "shape": [3], "default": [0.5, -1.0, 2.0]},
    "i_mat": {"kind": "fixed", "dtype": "int64", "shape": [2, 2]},
    "i_def": {"kind": "fixed", "dtype": "int64", "shape": [1], "default": [-7]},
    "s_fixed": {"kind": "fixed", "dtype": "string", "shape": [2]},
    "s_def": {"kind": "fixed", "dtype": "string", "shape": [], "default": b"dflt".hex()},
    "v_f": {"kind": "varlen", "dtype": "float32"},
    "v_i": {"kind": "varlen", "dtype": "int64"},
    "v_s": {"kind": "varlen", "dtype": "string"},
    "q_f": {"kind": "seq", "dtype": "float32", "shape": [2]},
    "q_s": {"kind": "seq", "dtype": "string", "shape": [], "default": b"pad".hex()},
    "q_i": {"kind": "seq", "dtype": "int64", "shape": []},
    "q_cube": {"kind": "seq", "dtype": "int64", "shape": [2, 1], "default": 9},
    "f_cube": {"kind": "fixed", "dtype": "float32", "shape": [1, 2, 2], "default": [1.0, 2.0, 3.0, 4.0]},
}


def random_example(rng):
    features = {}
    for key, spec in SPECS.items():
        kind, dtype = spec["kind"], spec["dtype"]
        if kind == "fixed":
            if "default" in spec and rng.random() < 0.5:
                continue  # missing: the default fills in
            n = int(np.prod(spec["shape"], dtype=np.int64))
        elif kind == "varlen":
            if rng.random() < 0.3:
                continue
            n = int(rng.integers(0, 5))  # 0: an empty list
        else:
            if rng.random() < 0.3:
                continue
            n = int(rng.integers(0, 4)) * int(np.prod(spec["shape"], dtype=np.int64))
        features[key] = (dtype, random_values(rng, dtype, n))
    if rng.random() < 0.5:  # features the spec does not name are ignored
        features["unrelated"] = ("int64", [1, 2, 3])
    return make_example(features)


def compare(ours, theirs, what):
    assert ours["ok"] == theirs["ok"], (what, ours, theirs)
    if not theirs["ok"]:
        assert ours["class"] == theirs["class"], (what, ours, theirs)
        return
    assert ours["outputs"] == theirs["outputs"], what


def test_random_examples_match_tensorflow(tmp_path):
    python = require_tensorflow("test_random_examples_match_tensorflow")
    rng = np.random.default_rng(20261125)
    cases, records = [], []
    for batch in [0, 1, 2, 5, 9]:
        examples = [random_example(rng) for _ in range(batch)]
        names = [f"ex{i}" for i in range(batch)] if batch % 2 else None
        cases.append({"mode": "batch", "examples": [e.hex() for e in examples], "names": names, "features": SPECS})
        records.append(examples)
    for _ in range(6):
        example = random_example(rng)
        cases.append({"mode": "single", "examples": [example.hex()], "features": SPECS})
        records.append([example])
    theirs = run_tf(python, tmp_path, cases)
    for i, (case, recs) in enumerate(zip(cases, records)):
        ours = run_ours(case, recs)
        assert theirs[i]["ok"], theirs[i]
        compare(ours, theirs[i], f"case {i} ({case['mode']}, {len(recs)} examples)")


def f(*values):
    return ("float32", list(values))


def i64(*values):
    return ("int64", list(values))


def b(*values):
    return ("string", list(values))


# (name, examples as {key: (dtype, values)} or raw bytes, features)
BAD = [
    ("missing required", [{"a": f(1.0)}, {"b": f(2.0)}], {"b": {"kind": "fixed", "dtype": "float32", "shape": [1]}}),
    ("dense wrong type", [{"a": i64(1)}], {"a": {"kind": "fixed", "dtype": "float32", "shape": [1]}}),
    ("dense float count", [{"a": f(1.0, 2.0, 3.0)}], {"a": {"kind": "fixed", "dtype": "float32", "shape": [2]}}),
    ("dense int64 count", [{"a": i64(1, 2)}], {"a": {"kind": "fixed", "dtype": "int64", "shape": [3]}}),
    ("dense bytes count", [{"a": b(b"x", b"y")}], {"a": {"kind": "fixed", "dtype": "string", "shape": [1]}}),
    ("dense empty list", [{"a": f()}], {"a": {"kind": "fixed", "dtype": "float32", "shape": [], "default": 5.0}}),
    ("varlen wrong type", [{"a": i64(1)}], {"a": {"kind": "varlen", "dtype": "string"}}),
    ("sequence not a multiple", [{"a": f(1.0, 2.0, 3.0)}], {"a": {"kind": "seq", "dtype": "float32", "shape": [2]}}),
    ("sequence wrong type", [{"a": i64(1)}], {"a": {"kind": "seq", "dtype": "float32", "shape": []}}),
    ("truncated bytes", [b"\x0a\x05abc"], {"a": {"kind": "fixed", "dtype": "float32", "shape": [1], "default": [0.0]}}),
]


def test_errors_match_tensorflow(tmp_path):
    python = require_tensorflow("test_errors_match_tensorflow")
    cases, records = [], []
    for name, examples, features in BAD:
        serialized = [e if isinstance(e, bytes) else make_example(e) for e in examples]
        for mode, names in [("batch", None), ("batch", [f"n{i}" for i in range(len(serialized))]), ("single", None)]:
            recs = serialized[:1] if mode == "single" else serialized  # the first example is the bad one
            cases.append({"mode": mode, "examples": [r.hex() for r in recs], "names": names, "features": features,
                          "what": name})
            records.append(recs)
    theirs = run_tf(python, tmp_path, cases)
    checked = 0
    for case, recs, tf_result in zip(cases, records, theirs):
        what = f"{case['what']} ({case['mode']}, names={case['names']})"
        assert not tf_result["ok"], (what, tf_result)
        ours = run_ours(case, recs)
        assert not ours["ok"], (what, ours)
        assert ours["class"] == tf_result["class"] == "InvalidArgumentError", (what, ours, tf_result)
        message = error_text(ours["message"])
        if message.startswith("Could not parse example input"):
            # TensorFlow prints the raw bytes; we print them escaped.
            assert "Could not parse example input, value: '" in tf_result["message"], what
        else:
            assert message in tf_result["message"], (what, message, tf_result["message"])
        checked += 1
    assert checked == len(BAD) * 3


def test_wire_edge_cases_match_tensorflow(tmp_path):
    """Bytes TensorFlow's parser accepts: a repeated key (the last wins), a key that is not
    UTF-8 (ignored, not a parse failure), unknown fields, an empty record, a Feature with
    no list set (absent), two Examples concatenated (merged)."""
    python = require_tensorflow("test_wire_edge_cases_match_tensorflow")
    a1, a2 = make_example({"a": f(1.0)}), make_example({"a": f(2.0), "v": i64(5, 6)})
    bad_key = make_example({"a\u00ff": f(3.0)}).replace("a\u00ff".encode(), b"a\xff\xfe")
    no_kind = bytes.fromhex("0a070a050a0161" "1200")  # features {feature {key: "a" value {}}}
    records = [a1 + a2, bad_key, a1 + b"\x10\x05", b"", no_kind, a2 + a1]
    features = {"a": {"kind": "fixed", "dtype": "float32", "shape": [1], "default": [-1.0]},
                "v": {"kind": "varlen", "dtype": "int64"}}
    cases = [{"mode": "batch", "examples": [r.hex() for r in records], "features": features}]
    cases += [{"mode": "single", "examples": [r.hex()], "features": features} for r in records]
    theirs = run_tf(python, tmp_path, cases)
    for i, case in enumerate(cases):
        assert theirs[i]["ok"], (i, theirs[i])
        compare(run_ours(case, [bytes.fromhex(h) for h in case["examples"]]), theirs[i], f"case {i}")
    assert theirs[0]["outputs"]["a"]["dense"]["values"] == [2.0, -1.0, 1.0, -1.0, -1.0, 1.0]


def test_feature_specs_are_checked_as_tensorflow_checks_them():
    import pytest
    import tensorweave as tf
    serialized = tf.constant([b""])
    with pytest.raises(ValueError, match="First dimension of shape for feature a unknown. "
                                         "Consider using FixedLenSequenceFeature."):
        tf.parse_example(serialized, {"a": tf.io.FixedLenFeature([None, 2], tf.float32)})
    with pytest.raises(ValueError, match="FixedLenSequenceFeature requires allow_missing to be True"):
        tf.parse_example(serialized, {"a": tf.io.FixedLenSequenceFeature([2], tf.float32)})
    with pytest.raises(ValueError, match="Feature a: unsupported dtype int32"):
        tf.parse_example(serialized, {"a": tf.io.VarLenFeature(tf.int32)})
