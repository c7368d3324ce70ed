"""BasicLSTMCell + tf.nn.dynamic_rnn against PyTorch's nn.LSTM on the same weights (TF's gate
order i, j, f, o and forget_bias 1.0 mapped to PyTorch's i, f, g, o in torch_side/): outputs,
final state and gradients in the inputs and weights, float64. PyTorch runs in its own python:
TW_TORCH_PYTHON, else the build tree's peer-venv (bench/install_peer.sh); skipped without one."""
import os
import subprocess

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import BUILD_DIR

TORCH_SIDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_side", "lstm_parity.py")


def _torch_python():
    for path in (os.environ.get("TW_TORCH_PYTHON"), os.path.join(BUILD_DIR, "peer-venv", "bin", "python")):
        if path and os.path.exists(path):
            return path
    pytest.skip("needs PyTorch: set TW_TORCH_PYTHON or run bench/install_peer.sh (build/peer-venv)")


def test_lstm_matches_pytorch(tmp_path):
    python = _torch_python()
    rng = np.random.default_rng(1805)
    batch, steps, depth, units = 3, 6, 4, 5
    x = rng.standard_normal((batch, steps, depth))
    kernel = rng.uniform(-0.5, 0.5, (depth + units, 4 * units))
    bias = rng.uniform(-0.3, 0.3, 4 * units)
    np.savez(tmp_path / "in.npz", x=x, kernel=kernel, bias=bias)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_PRELOAD", "ASAN_OPTIONS")}
    done = subprocess.run([python, TORCH_SIDE, str(tmp_path / "in.npz"), str(tmp_path / "out.npz")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    theirs = np.load(tmp_path / "out.npz")

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
    names = ["outputs", "h", "c", "loss", "g_x", "g_kernel", "g_bias"]
    for name, ours in zip(names, got):
        np.testing.assert_allclose(ours, theirs[name], rtol=1e-10, atol=1e-12, err_msg=name)
