"""The PyTorch peer of bench/lenet_training.sh: the same LeNet-5-style model, batch, data and
optimizer in current PyTorch (build/peer-venv; convolutions through oneDNN, matrix products
through MKL, on torch.set_num_threads(THREADS) OpenMP threads), NCHW as PyTorch prefers.
Tries eager (NCHW, and channels_last) and torch.compile of the whole step; prints each
median; RESULT is the fastest.
Usage: torch_lenet_training.py THREADS STEPS"""
import sys

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
import peer_env  # noqa: E402

peer_env.configure(threads)  # Before torch loads its OpenMP runtime.
import torch  # noqa: E402
from torch import nn  # noqa: E402

torch.set_num_threads(threads)
x = torch.rand(64, 1, 28, 28, generator=torch.Generator().manual_seed(5))
labels = torch.tensor([i % 10 for i in range(64)])
loss_fn = nn.CrossEntropyLoss()


def measure(variant):
    torch.manual_seed(5)
    model = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(7 * 7 * 64, 1024), nn.ReLU(), nn.Dropout(0.5), nn.Linear(1024, 10))
    inputs = x
    if variant == "eager channels_last":  # oneDNN's NHWC kernels, tensorweave's layout
        model = model.to(memory_format=torch.channels_last)
        inputs = x.to(memory_format=torch.channels_last)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(inputs), labels)
        loss.backward()
        opt.step()
        return loss

    if variant == "compiled step":
        step = torch.compile(step)
    step_ms = peer_env.median_step_ms(step, 3, steps)  # 3 warm-up steps (and compilation).
    model.eval()
    with torch.no_grad():
        return step_ms, float(loss_fn(model(inputs), labels))


print(f"PyTorch {torch.__version__}: oneDNN (mkldnn) {'on' if torch.backends.mkldnn.is_available() else 'off'}, "
      f"MKL {'on' if torch.backends.mkl.is_available() else 'off'}", flush=True)
results = {}
for variant in ("eager", "eager channels_last", "compiled step"):
    try:
        ms, final = measure(variant)
    except Exception as e:  # torch.compile needs a C++ compiler and Python headers; say why it was skipped.
        print(f"PyTorch {variant}: failed ({type(e).__name__}: {str(e).splitlines()[0][:200]})", flush=True)
        continue
    results[variant] = ms
    print(f"PyTorch LeNet-5 batch 64 Adam, {threads} thread(s), {variant}: {ms:.2f} ms/step median "
          f"({1000 / ms:.1f} steps/s), loss {final:.4f}", flush=True)
best = min(results, key=results.get)
print(f"fastest: {best}")
print(f"RESULT ms_per_step={results[best]:.3f}")
