"""PyTorch's nn.LSTM on the arrays of in.npz (x [B, T, D], TensorFlow's kernel [D + H, 4H] and
bias [4H] converted to PyTorch's gate order i, f, g, o with forget_bias 1.0 folded into the
f bias): writes out.npz with outputs, h, c, loss and the gradients of the loss in x and in
TensorFlow's kernel and bias layout. Run by test_lstm_torch_parity.py with a PyTorch python."""
import sys

import numpy as np
import torch

torch.set_num_threads(1)
data = np.load(sys.argv[1])
x, kernel, bias = data["x"], data["kernel"], data["bias"]
d, h4 = x.shape[2], kernel.shape[1]
h = h4 // 4
i, j, f, o = (slice(k * h, (k + 1) * h) for k in range(4))
order = [i, f, j, o]  # TF's i, j, f, o -> PyTorch's i, f, g, o.
lstm = torch.nn.LSTM(d, h, batch_first=True).double()
with torch.no_grad():
    lstm.weight_ih_l0.copy_(torch.from_numpy(np.concatenate([kernel[:d, s] for s in order], 1).T))
    lstm.weight_hh_l0.copy_(torch.from_numpy(np.concatenate([kernel[d:, s] for s in order], 1).T))
    b = np.concatenate([bias[s] for s in order])
    b[h:2 * h] += 1.0  # forget_bias
    lstm.bias_ih_l0.copy_(torch.from_numpy(b))
    lstm.bias_hh_l0.zero_()
xt = torch.from_numpy(x).requires_grad_(True)
out, (hn, cn) = lstm(xt)
loss = torch.sin(out).sum() + (cn * cn).sum()
loss.backward()
g_ih = lstm.weight_ih_l0.grad.numpy().T  # [D, 4H] in PyTorch's order
g_hh = lstm.weight_hh_l0.grad.numpy().T
g_b = lstm.bias_ih_l0.grad.numpy()  # bias_hh has the same gradient: TF has one bias.
back = {0: 0, 1: 2, 2: 1, 3: 3}  # PyTorch block k holds TF block order[k]: i, f(=TF 2), g(=TF 1), o.
g_kernel = np.zeros_like(kernel)
g_bias = np.zeros_like(bias)
for k in range(4):
    tf_block = slice(back[k] * h, (back[k] + 1) * h)
    g_kernel[:d, tf_block] = g_ih[:, k * h:(k + 1) * h]
    g_kernel[d:, tf_block] = g_hh[:, k * h:(k + 1) * h]
    g_bias[tf_block] = g_b[k * h:(k + 1) * h]
np.savez(sys.argv[2], outputs=out.detach().numpy(), h=hn[0].detach().numpy(), c=cn[0].detach().numpy(),
         loss=loss.detach().numpy(), g_x=xt.grad.numpy(), g_kernel=g_kernel, g_bias=g_bias)
