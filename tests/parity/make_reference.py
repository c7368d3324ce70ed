"""Makes tests/parity/reference_gradients.txt: losses and gradients of two small models
computed by PyTorch (Debian's python3-torch) in float64, for tests/parity_test.cc.

Inputs and weights come from closed-form formulas (below, mirrored in the C++ test) so
nothing but the results needs storing. Run: /usr/bin/python3 tests/parity/make_reference.py
"""
import math
import pathlib

import torch

torch.set_default_dtype(torch.float64)


def pattern(shape, scale, phase):
    """value[i] = scale * sin(0.37 * i + phase) over the flattened index i."""
    n = math.prod(shape)
    return torch.tensor([scale * math.sin(0.37 * i + phase) for i in range(n)]).reshape(shape)


def exp_mlp():
    """Seed 003's y = e^x network: 1 -> 16 (sigmoid) -> 1, mean squared error."""
    x = pattern((8, 1), 1.0, 0.1)
    w1 = pattern((1, 16), 0.8, 0.2).requires_grad_()
    b1 = pattern((16,), 0.3, 0.3).requires_grad_()
    w2 = pattern((16, 1), 0.6, 0.4).requires_grad_()
    b2 = pattern((1,), 0.2, 0.5).requires_grad_()
    h = torch.sigmoid(x @ w1 + b1)
    y = h @ w2 + b2
    loss = torch.mean((y - torch.exp(x)) ** 2)
    loss.backward()
    return loss, [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)]


def classifier():
    """A 2-layer classifier: 5 -> 7 (relu) -> 3, softmax cross-entropy, mean over 6 rows."""
    x = pattern((6, 5), 1.0, 0.6)
    labels = torch.nn.functional.one_hot(torch.tensor([0, 2, 1, 1, 0, 2]), 3).double()
    w1 = pattern((5, 7), 0.5, 0.7).requires_grad_()
    b1 = pattern((7,), 0.1, 0.8).requires_grad_()
    w2 = pattern((7, 3), 0.5, 0.9).requires_grad_()
    b2 = pattern((3,), 0.1, 1.0).requires_grad_()
    logits = torch.relu(x @ w1 + b1) @ w2 + b2
    loss = torch.mean(-(labels * torch.log_softmax(logits, dim=1)).sum(dim=1))
    loss.backward()
    return loss, [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)]


lines = [f"# made by tests/parity/make_reference.py with torch {torch.__version__}"]
for name, model in [("exp_mlp", exp_mlp), ("classifier", classifier)]:
    loss, params = model()
    lines.append(f"{name} loss {loss.item():.17g}")
    for pname, p in params:
        values = " ".join(f"{v:.17g}" for v in p.grad.flatten().tolist())
        lines.append(f"{name} grad_{pname} {values}")
out = pathlib.Path(__file__).with_name("reference_gradients.txt")
out.write_text("\n".join(lines) + "\n")
print(f"wrote {out}")
