"""BasicLSTMCell + tf.nn.dynamic_rnn against PyTorch's nn.LSTM on the same weights (TF's gate
order i, j, f, o and forget_bias 1.0 mapped to PyTorch's i, f, g, o in torch_side/): outputs,
final state and gradients in the inputs and weights, float64, to 1e-10.

PyTorch's values are stored, as tests/parity does: tests/parity/lstm_reference.npz holds the
inputs and what torch_side/lstm_parity.py computed from them with PyTorch 2.15.0 (the
build tree's peer-venv, bench/install_peer.sh). With a PyTorch python (TW_TORCH_PYTHON or
that peer-venv) the test also recomputes them and checks the stored ones."""
import os
import subprocess

import numpy as np

import tensorweave as tf
from tf_peer import BUILD_DIR

SOURCE_DIR = os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
REFERENCE = os.path.join(SOURCE_DIR, "tests", "parity", "lstm_reference.npz")
TORCH_SIDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_side", "lstm_parity.py")
NAMES = ["outputs", "h", "c", "loss", "g_x", "g_kernel", "g_bias"]


def _torch_python():
    for path in (os.environ.get("TW_TORCH_PYTHON"), os.path.join(BUILD_DIR, "peer-venv", "bin", "python")):
        if path and os.path.exists(path):
            return path
    return None


def test_lstm_matches_pytorch():
    ref = np.load(REFERENCE)
    x, kernel, bias = ref["x"], ref["kernel"], ref["bias"]
    units = bias.shape[0] // 4
    xt = tf.constant(x)
    cell = tf.nn.rnn_cell.BasicLSTMCell(units)
    outputs, state = tf.nn.dynamic_rnn(cell, xt, dtype=tf.float64)
    loss = tf.reduce_sum(tf.sin(outputs)) + tf.reduce_sum(state.c * state.c)
    k_var, b_var = sorted(tf.trainable_variables(), key=lambda v: v.name)[::-1]  # kernel, bias
    assert (k_var.name, b_var.name) == ("rnn/basic_lstm_cell/kernel:0", "rnn/basic_lstm_cell/bias:0")
    grads = tf.gradients(loss, [xt, k_var, b_var])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([k_var.assign(kernel), b_var.assign(bias)])
        got = sess.run([outputs, state.h, state.c, loss] + grads)
    for name, ours in zip(NAMES, got):
        np.testing.assert_allclose(ours, ref["torch_" + name], rtol=1e-10, atol=1e-12, err_msg=name)


def test_the_stored_values_are_what_pytorch_computes(tmp_path):
    python = _torch_python()
    if python is None:
        import pytest
        pytest.skip("needs PyTorch to recompute the stored values: set TW_TORCH_PYTHON or run bench/install_peer.sh")
    ref = np.load(REFERENCE)
    np.savez(tmp_path / "in.npz", x=ref["x"], kernel=ref["kernel"], bias=ref["bias"])
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_PRELOAD", "ASAN_OPTIONS")}
    done = subprocess.run([python, TORCH_SIDE, str(tmp_path / "in.npz"), str(tmp_path / "out.npz")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    theirs = np.load(tmp_path / "out.npz")
    for name in NAMES:
        np.testing.assert_allclose(theirs[name], ref["torch_" + name], rtol=1e-12, atol=1e-14, err_msg=name)
