"""The PyTorch peer of bench/mlp_training: the same MLP, batch, data and optimizer in
current PyTorch (build/peer-venv), torch.set_num_threads(THREADS) (MKL and oneDNN on
that many OpenMP threads). Tries eager, torch.compile of the model, and torch.compile of
the whole step (forward, backward, Adam); prints each median; RESULT is the fastest.
Usage: torch_mlp_training.py THREADS STEPS"""
import sys

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 300
import peer_env  # noqa: E402

peer_env.configure(threads)  # Before torch loads its OpenMP runtime.
import torch  # noqa: E402

torch.set_num_threads(threads)
batch, n_in, hidden, n_out = 128, 784, 256, 10
x = torch.rand(batch, n_in, generator=torch.Generator().manual_seed(5))
labels = torch.tensor([i % n_out for i in range(batch)])
loss_fn = torch.nn.CrossEntropyLoss()


def measure(variant):
    torch.manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Linear(n_in, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, n_out))
    opt = torch.optim.Adam(model.parameters(), lr=0.001)
    forward = torch.compile(model) if variant == "compiled model" else model

    def step():
        opt.zero_grad()
        loss = loss_fn(forward(x), labels)
        loss.backward()
        opt.step()
        return loss

    if variant == "compiled step":
        step = torch.compile(step)
    step_ms = peer_env.median_step_ms(step, 20, steps)  # 20 warm-up steps (and compilation).
    with torch.no_grad():
        return step_ms, float(loss_fn(model(x), labels))


results = {}
for variant in ("eager", "compiled model", "compiled step"):
    try:
        ms, final = measure(variant)
    except Exception as e:  # torch.compile needs a C++ compiler and Python headers; say why it was skipped.
        print(f"PyTorch {variant}: failed ({type(e).__name__}: {str(e).splitlines()[0][:200]})", flush=True)
        continue
    results[variant] = ms
    print(f"PyTorch {torch.__version__} MLP 784-256-10 batch 128 Adam, {threads} thread(s), {variant}: "
          f"{ms:.3f} ms/step median ({1000 / ms:.0f} steps/s), loss {final:.4f}", flush=True)
best = min(results, key=results.get)
print(f"fastest: {best}")
print(f"RESULT ms_per_step={results[best]:.4f}")
