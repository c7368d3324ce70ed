"""The PyTorch peer of bench/lstm_training.sh: the same LSTM step (batch 32, 50 time steps,
128 -> 256, a dense layer on the last output, cross-entropy, Adam 1e-3) with nn.LSTM
(batch_first; its fused CPU kernel) in current PyTorch (build/peer-venv) on
torch.set_num_threads(THREADS). Tries eager and torch.compile of the whole step; prints
each median; RESULT is the fastest.
Usage: torch_lstm_training.py THREADS STEPS"""
import sys

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
import peer_env  # noqa: E402

peer_env.configure(threads)  # Before torch loads its OpenMP runtime.
import torch  # noqa: E402
from torch import nn  # noqa: E402

torch.set_num_threads(threads)
BATCH, TIME, INPUTS, HIDDEN, CLASSES = 32, 50, 128, 256, 10
x = torch.randn(BATCH, TIME, INPUTS, generator=torch.Generator().manual_seed(5))
labels = torch.tensor([i % CLASSES for i in range(BATCH)])
loss_fn = nn.CrossEntropyLoss()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(INPUTS, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, CLASSES)

    def forward(self, inputs):
        return self.out(self.lstm(inputs)[0][:, -1])


def measure(variant):
    torch.manual_seed(5)
    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), labels)
        loss.backward()
        opt.step()
        return loss

    if variant == "compiled step":
        step = torch.compile(step)
    return peer_env.median_step_ms(step, 3, steps)


print(f"PyTorch {torch.__version__}", flush=True)
results = {}
for variant in ("eager", "compiled step"):
    try:
        results[variant] = measure(variant)
        print(f"PyTorch nn.LSTM step, {threads} thread(s), {variant}: {results[variant]:.2f} ms/step median", flush=True)
    except Exception as e:  # pylint: disable=broad-except - a variant the installed torch cannot run.
        print(f"PyTorch {variant}: not available ({type(e).__name__}: {e})", flush=True)
best = min(results, key=results.get)
print(f"RESULT ms_per_step={results[best]:.3f} variant={best}")
