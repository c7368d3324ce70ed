"""The peer of bench/mlp_training: the same MLP, batch, data and optimizer in PyTorch.
Usage: torch_mlp_training.py THREADS STEPS"""
import os
import statistics
import sys
import time

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 300
import peer_env  # noqa: E402

peer_env.configure(threads)  # Before torch loads OpenBLAS.
import torch  # noqa: E402

torch.set_num_threads(threads)
torch.manual_seed(5)
batch, n_in, hidden, n_out = 128, 784, 256, 10
model = torch.nn.Sequential(torch.nn.Linear(n_in, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, n_out))
opt = torch.optim.Adam(model.parameters(), lr=0.001)
x = torch.rand(batch, n_in)
labels = torch.tensor([i % n_out for i in range(batch)])
loss_fn = torch.nn.CrossEntropyLoss()


def step():
    opt.zero_grad()
    loss = loss_fn(model(x), labels)
    loss.backward()
    opt.step()
    return loss


for _ in range(20):
    step()
times = []
for _ in range(steps):
    start = time.perf_counter()
    step()
    times.append((time.perf_counter() - start) * 1000)
median = statistics.median(times)
print(f"PyTorch MLP 784-256-10 batch 128 Adam, {threads} thread(s): {median:.3f} ms/step median "
      f"({1000 / median:.0f} steps/s)")
print(f"RESULT ms_per_step={median:.4f}")
