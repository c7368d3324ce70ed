"""BlockLSTM and its gradient (BlockLSTMGrad) against TensorFlow's kernels on graphs built by
the same code on both sides (tf_side/block_lstm_cases.py): the seven outputs and the gradients
of every input, with and without peepholes and clipping, seq_len_max below the length and 0.
tf.contrib.rnn.LSTMBlockFusedCell against BasicLSTMCell through dynamic_rnn with the same
weights (TF 2 has no contrib): outputs, final state and gradients, with sequence lengths.
Bad shapes and seq_len_max are errors naming the input."""
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, shared_cases_names, shared_cases_ours, shared_cases_outputs

sys.path.insert(0, TF_SIDE_DIR)
import block_lstm_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()


@pytest.fixture(scope="module")
def theirs(tmp_path_factory):
    return shared_cases_outputs("test_block_lstm", cases, tmp_path_factory.mktemp("cases"))


@pytest.fixture(scope="module")
def ours():
    return shared_cases_ours(cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    expected, got = theirs[0][name], ours[name]
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, expected.shape)
    if "_grad_" not in name:
        # From seq_len_max on TensorFlow's kernel leaves some outputs uninitialized (stale
        # memory in some runs); ours are zeros (test_steps_from_seq_len_max_on_are_zeros).
        steps = cases.CASES[name.rsplit("_", 1)[0]][4]
        expected, got = expected[:steps], got[:steps]
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-5)


def test_static_shapes_match_tensorflow(theirs):
    with tf.Graph().as_default():
        assert cases.static_shapes(tf) == theirs[1]["shapes"]


def test_no_steps_gives_zeros(ours):
    for k in ("i", "cs", "f", "o", "ci", "co", "h"):
        assert ours[f"no_steps_{k}"].shape == (3, 2, 2) and not ours[f"no_steps_{k}"].any()


def test_steps_from_seq_len_max_on_are_zeros(ours):
    t, steps = cases.CASES["short_sequence"][0], cases.CASES["short_sequence"][4]
    assert steps < t
    for k in ("i", "cs", "f", "o", "ci", "co", "h"):
        assert not ours[f"short_sequence_{k}"][steps:].any() and ours[f"short_sequence_{k}"][:steps].all()
    assert not ours["short_sequence_grad_x"][steps:].any()


def _fused_and_dynamic(lengths, initial):
    """(fused, dynamic_rnn) runs of the same LSTM: [outputs, c, h, gradients of a loss]."""
    rng = np.random.default_rng(3)
    x0 = rng.normal(size=(6, 3, 4)).astype(np.float32)
    runs = []
    with tf.Graph().as_default():
        x = tf.constant(x0)
        state = None
        if initial:
            state = tf.nn.rnn_cell.LSTMStateTuple(tf.constant(rng.normal(size=(3, 5)).astype(np.float32)),
                                                  tf.constant(rng.normal(size=(3, 5)).astype(np.float32)))
        with tf.variable_scope("fused"):
            out1, st1 = tf.contrib.rnn.LSTMBlockFusedCell(5, forget_bias=0.7)(
                x, initial_state=state, dtype=tf.float32, sequence_length=lengths)
        with tf.variable_scope("dynamic"):
            out2, st2 = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5, forget_bias=0.7), x, initial_state=state,
                                          sequence_length=lengths, time_major=True, dtype=tf.float32)
        fused = [v for v in tf.global_variables() if v.name.startswith("fused/")]
        dynamic = [v for v in tf.global_variables() if v.name.startswith("dynamic/")]
        assert [v.name for v in fused] == ["fused/lstm_fused_cell/kernel:0", "fused/lstm_fused_cell/bias:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([d.assign(f + 0.1) for f, d in zip(fused, dynamic)] + [f.assign(f + 0.1) for f in fused])
            for out, st, variables in ((out1, st1, fused), (out2, st2, dynamic)):
                loss = tf.reduce_sum(out * out) + tf.reduce_sum(st.c * 2.0) - tf.reduce_sum(st.h)
                runs.append(sess.run([out, st.c, st.h] + tf.gradients(loss, variables + [x])))
    return runs


@pytest.mark.parametrize("lengths,initial", [(None, False), ([6, 2, 0], False), ([3, 6, 1], True)])
def test_fused_cell_matches_dynamic_rnn(lengths, initial):
    fused, dynamic = _fused_and_dynamic(lengths, initial)
    for a, b in zip(fused, dynamic):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    if lengths is not None:
        assert not fused[0][lengths[1]:, 1].any()  # outputs beyond a length are zeros


def _run_block_lstm(**shapes):
    dims = {"x": [3, 2, 4], "cs_prev": [2, 5], "h_prev": [2, 5], "w": [9, 20], "wci": [5], "wcf": [5], "wco": [5],
            "b": [20]}
    dims.update(shapes)
    steps = dims.pop("steps", 3)
    with tf.Graph().as_default():
        feeds, ins = {}, {}
        for k, shape in dims.items():
            ins[k] = tf.placeholder(tf.float32)
            feeds[ins[k]] = np.zeros(shape, np.float32)
        seq = tf.placeholder(tf.int64)
        feeds[seq] = steps
        h = tf.raw_ops.BlockLSTM(seq_len_max=seq, **ins)[6]
        with tf.Session() as sess:
            return sess.run(h, feeds)


@pytest.mark.parametrize("shapes,message", [
    ({"cs_prev": [3, 5]}, "cs_prev must have shape [2,5], got [3,5]"),
    ({"w": [8, 20]}, "w must have shape [9,20], got [8,20]"),
    ({"b": [18]}, "b must be a vector of 4 * cell_size"),
    ({"wco": [4]}, "wco must have shape [5], got [4]"),
    ({"x": [3, 2]}, "x must be 3-D [time, batch, input]"),
    ({"steps": 4}, "seq_len_max is 4, but x has 3 time steps"),
    ({"steps": -1}, "seq_len_max is -1"),
])
def test_bad_input_is_an_error_naming_it(shapes, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match="BlockLSTM: " + message.replace("[", r"\[")
                       .replace("]", r"\]").replace("*", r"\*")):
        _run_block_lstm(**shapes)


def test_graph_construction_checks_known_shapes():
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"BlockLSTM: h_prev has shape \[2,5\], dim 0 should be 3"):
            tf.raw_ops.BlockLSTM(seq_len_max=tf.constant(1, tf.int64), x=tf.zeros([2, 3, 4]), cs_prev=tf.zeros([3, 5]),
                                 h_prev=tf.zeros([2, 5]), w=tf.zeros([9, 20]), wci=tf.zeros([5]), wcf=tf.zeros([5]),
                                 wco=tf.zeros([5]), b=tf.zeros([20]))


def test_gradients_without_x_grad_read_are_the_same(ours):
    # Nothing reads x's gradient here, so BlockLSTMGrad skips it (output_required).
    name = "peephole_clip"
    with tf.Graph().as_default():
        ins = {k: tf.constant(ARRAYS[f"{name}_{k}"]) for k in cases.INPUTS}
        _t, _b, _i, _c, steps, forget_bias, cell_clip, peephole = cases.CASES[name]
        outs = tf.raw_ops.BlockLSTM(seq_len_max=tf.constant(steps, tf.int64), forget_bias=forget_bias,
                                    cell_clip=cell_clip, use_peephole=peephole, **ins)
        loss = tf.reduce_sum(tf.constant(ARRAYS[f"{name}_dcs"]) * outs[1]) + \
            tf.reduce_sum(tf.constant(ARRAYS[f"{name}_dh"]) * outs[6])
        grads = tf.gradients(loss, [ins["w"], ins["b"], ins["wco"]])
        with tf.Session() as sess:
            got = sess.run(grads)
    for k, g in zip(("w", "b", "wco"), got):
        np.testing.assert_array_equal(g, ours[f"{name}_grad_{k}"])
