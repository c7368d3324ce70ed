"""Makes tests/parity/reference_cnn_gradients.txt: the loss and every parameter gradient of
a LeNet-like CNN computed by PyTorch in float64, for tests/parity_cnn_test.cc.

The model (TensorFlow's layout: images NHWC, conv kernels [kh, kw, in, out]):
  conv 5x5, 1 -> 4, SAME, bias, relu; max pool 2x2 / 2;
  conv 3x3, 4 -> 6, VALID, stride 1, bias, relu; max pool 2x2 / 2;
  flatten (in NHWC order); dense 24 -> 8, relu; dense 8 -> 3; softmax cross-entropy, mean.
Input [2, 12, 12, 1]. Inputs and weights come from the closed-form pattern of
make_reference.py (over the NHWC / HWIO flattened index, mirrored in the C++ test); PyTorch
sees them permuted to NCHW / OIHW and the gradients are permuted back. Run with the
benchmark peer's python (PyTorch; bench/install_peer.sh) or Debian's python3-torch:
    build/peer-venv/bin/python tests/parity/make_cnn_reference.py
"""
import math
import pathlib

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


def pattern(shape, scale, phase):
    """value[i] = scale * sin(0.37 * i + phase) over the flattened index i."""
    n = math.prod(shape)
    return torch.tensor([scale * math.sin(0.37 * i + phase) for i in range(n)]).reshape(shape)


def lenet():
    x = pattern((2, 12, 12, 1), 1.0, 0.05)
    labels = torch.tensor([2, 0])
    params = {
        "conv1_kernel": pattern((5, 5, 1, 4), 0.4, 0.15),
        "conv1_bias": pattern((4,), 0.1, 0.25),
        "conv2_kernel": pattern((3, 3, 4, 6), 0.3, 0.35),
        "conv2_bias": pattern((6,), 0.1, 0.45),
        "dense1_kernel": pattern((24, 8), 0.3, 0.55),
        "dense1_bias": pattern((8,), 0.1, 0.65),
        "dense2_kernel": pattern((8, 3), 0.4, 0.75),
        "dense2_bias": pattern((3,), 0.1, 0.85),
    }
    for p in params.values():
        p.requires_grad_()
    h = x.permute(0, 3, 1, 2)  # NCHW
    h = F.relu(F.conv2d(h, params["conv1_kernel"].permute(3, 2, 0, 1), params["conv1_bias"], padding=2))
    h = F.max_pool2d(h, 2, 2)
    h = F.relu(F.conv2d(h, params["conv2_kernel"].permute(3, 2, 0, 1), params["conv2_bias"]))
    h = F.max_pool2d(h, 2, 2)
    h = h.permute(0, 2, 3, 1).reshape(2, -1)  # flatten as NHWC
    h = F.relu(h @ params["dense1_kernel"] + params["dense1_bias"])
    logits = h @ params["dense2_kernel"] + params["dense2_bias"]
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    return loss, list(params.items())


lines = [f"# made by tests/parity/make_cnn_reference.py with torch {torch.__version__}"]
loss, params = lenet()
lines.append(f"lenet loss {loss.item():.17g}")
for name, p in params:
    values = " ".join(f"{v:.17g}" for v in p.grad.flatten().tolist())
    lines.append(f"lenet grad_{name} {values}")
out = pathlib.Path(__file__).with_name("reference_cnn_gradients.txt")
out.write_text("\n".join(lines) + "\n")
print(f"wrote {out}")
