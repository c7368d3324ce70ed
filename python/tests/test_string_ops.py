"""String ops of issue 19 (AsString, StringToNumber, StringLength, StringStrip, StringLower/Upper,
Substr, RegexReplace, StringSplit, StringSplitV2, DecodeRaw): the cases of
tf_side/string_op_cases.py run here and in TensorFlow must give the same values, dtypes, shapes
and error messages."""
import ast
import sys

import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script

sys.path.insert(0, TF_SIDE_DIR)
import string_op_cases  # noqa: E402


@pytest.fixture(scope="module")
def theirs():
    python = require_tensorflow("test_string_ops")
    return ast.literal_eval(run_tf_script(python, "string_op_results.py"))


@pytest.fixture(scope="module")
def ours():
    return string_op_cases.run_all(tf, lambda g: tf.Session(graph=g))


@pytest.mark.parametrize("case", sorted(string_op_cases.cases()))
def test_same_as_tensorflow(case, ours, theirs):
    assert ours[case] == theirs[case]


def test_errors_are_compared_too(ours):
    # The error cases must fail here (not only agree with TensorFlow by accident).
    for name in ("to_number_bad", "substr_out_of_range", "regex_bad_pattern", "decode_raw_ragged",
                 "string_split_not_vector", "as_string_bad_fill"):
        assert ours[name][0] == "error", name


def test_split_returns_a_sparse_tensor_with_static_shapes():
    sp = tf.string_split(["a b", "c"])
    assert isinstance(sp, tf.SparseTensor)
    assert sp.indices.shape.as_list() == [None, 2] and sp.dense_shape.shape.as_list() == [2]
    assert tf.decode_raw(tf.placeholder(tf.string, [3]), tf.int32).shape.as_list() == [3, None]
    assert tf.as_string(tf.zeros([2, 5])).shape.as_list() == [2, 5]


def test_static_regex_replace_runs_tensorflows_graph_form():
    g = tf.Graph()
    with g.as_default():
        out = g.create_op("StaticRegexReplace", [tf.constant(["a1b22"])],
                          {"pattern": "\\d+", "rewrite": "#", "replace_global": True}).outputs[0]
        with tf.Session() as sess:
            assert sess.run(out).tolist() == [b"a#b#"]
