"""Summary ops against TensorFlow: the cases of tf_side/summary_cases.py run in both systems;
every Summary value must agree field by field (histograms exactly, images pixel by pixel
after PNG decoding, text tensors), and every error case must fail with TF's message."""
import ast
import sys

import numpy as np
import pytest

import tensorweave as tf
from summary_checks import assert_values_equal, decode_png
from tensorweave.framework import _op_output
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script

sys.path.insert(0, TF_SIDE_DIR)
import summary_cases  # noqa: E402


class _TW:
    """tensorweave plus the raw summary ops the cases call by name."""
    def __getattr__(self, name):
        if name == "raw_scalar_summary":
            return lambda tags, values: _op_output("ScalarSummary", [tf.convert_to_tensor(tags, tf.string), values])
        if name == "raw_histogram_summary":
            return lambda tag, values: _op_output("HistogramSummary", [tf.convert_to_tensor(tag, tf.string), values])
        if name == "raw_image_summary":
            return lambda tag, tensor: _op_output("ImageSummary", [tf.convert_to_tensor(tag, tf.string), tensor],
                                                  {"bad_color": np.array([255, 0, 0, 255], np.uint8)})
        return getattr(tf, name)


def _kernel_message(tf_error):
    """The kernel's own line of a TF 2 graph error (between "Node: 'x'" and "[[{{node x}}]]")."""
    lines = [line for line in tf_error.split("\n") if line.strip()]
    kept = [line for line in lines if not line.startswith(("Graph execution error", "Detected at node", "    File",
                                                             "Node: ", "\t [["))]
    assert kept, tf_error
    return kept[-1]


@pytest.fixture(scope="module")
def both():
    python = require_tensorflow("test_summary_ops")
    theirs = ast.literal_eval(run_tf_script(python, "summary_results.py"))
    ours = summary_cases.run_all(_TW(), lambda g: tf.Session(graph=g), tf.errors.OpError)
    return ours, theirs


@pytest.mark.parametrize("case", [c.__name__ for c in summary_cases.cases()])
def test_case_matches_tensorflow(both, case):
    ours, theirs = both
    assert ours[case][0] == theirs[case][0], (case, ours[case], theirs[case])
    if theirs[case][0] == "error":
        tf_message = _kernel_message(theirs[case][1])
        assert tf_message in ours[case][1], (case, ours[case][1], tf_message)
        return
    assert len(ours[case][1]) == len(theirs[case][1])
    for mine, yours in zip(ours[case][1], theirs[case][1]):
        a, b = tf.Summary(), tf.Summary()
        a.ParseFromString(mine)
        b.ParseFromString(yours)
        assert [v.tag for v in a.value] == [v.tag for v in b.value], case
        for va, vb in zip(a.value, b.value):
            assert_values_equal(va, vb, case)


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def test_histogram_buckets_are_tensorflows_defaults():
    tf.reset_default_graph()
    s = tf.Summary()
    s.ParseFromString(_run(tf.summary.histogram("one", tf.constant([1.0]))))
    h = s.value[0].histo
    # One value: the empty runs collapse around its bucket (1.0 is counted under the first
    # limit above it, 1.1**290 * 1e-12 ~= 1.0089).
    assert (h.min, h.max, h.num, h.sum, h.sum_squares) == (1.0, 1.0, 1.0, 1.0, 1.0)
    assert list(h.bucket) == [0.0, 1.0, 0.0]
    assert h.bucket_limit[0] < 1.0 < h.bucket_limit[1] and h.bucket_limit[2] == np.finfo(np.float64).max
    assert h.bucket_limit[1] == pytest.approx(1e-12 * 1.1 ** 290, rel=1e-9)


def test_image_tags_and_pixels():
    tf.reset_default_graph()
    pixels = np.arange(2 * 2 * 3 * 3, dtype=np.uint8).reshape(2, 2, 3, 3) * 7
    s = tf.Summary()
    s.ParseFromString(_run(tf.summary.image("pics", tf.constant(pixels), max_outputs=5)))
    assert [v.tag for v in s.value] == ["pics/image/0", "pics/image/1"]
    np.testing.assert_array_equal(decode_png(s.value[1].image.encoded_image_string), pixels[1])


def test_shape_functions_reject_at_graph_time():
    tf.reset_default_graph()
    with pytest.raises(Exception, match="Tensor must be 4-D with last dim 1, 3, or 4, not"):
        tf.summary.image("img", tf.constant(np.zeros([2, 2, 2], np.float32)))
    with pytest.raises(Exception, match="Tensor must be 4-D with last dim 1, 3, or 4, not"):
        tf.summary.image("img", tf.constant(np.zeros([1, 2, 2, 5], np.float32)))
    with pytest.raises(Exception, match="tags must be scalar"):
        _op_output("HistogramSummary", [tf.constant(["a", "b"]), tf.constant(1.0)])
    with pytest.raises(ValueError, match="to have dtype string"):
        tf.summary.text("t", tf.constant(1.0))
    with pytest.raises(ValueError, match="max_outputs must be >= 1"):
        tf.summary.image("img", tf.constant(np.zeros([1, 2, 2, 1], np.uint8)), max_outputs=0)


def test_merge_all_empty_is_none_and_scope_filters():
    tf.reset_default_graph()
    assert tf.summary.merge_all() is None
    with tf.name_scope("a"):
        tf.summary.scalar("x", tf.constant(1.0))
    tf.summary.scalar("y", tf.constant(2.0))
    s = tf.Summary()
    s.ParseFromString(_run(tf.summary.merge_all(scope="a")))
    assert [v.tag for v in s.value] == ["a/x"]
