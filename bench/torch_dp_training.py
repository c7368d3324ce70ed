"""The peer of bench/dp_training: the same MLP, batch per worker, data and optimizer,
trained synchronously data-parallel with PyTorch DistributedDataParallel (gloo backend)
in WORKERS processes on loopback, 1 thread each.
Current PyTorch from build/peer-venv. torch.compile is not tried here (the MLP benchmark
tries it on the same model, one process).
Usage: torch_dp_training.py WORKERS STEPS REPEATS WARMUP"""
import sys

workers = int(sys.argv[1]) if len(sys.argv) > 1 else 2
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
warmup = int(sys.argv[4]) if len(sys.argv) > 4 else 30
import peer_env  # noqa: E402

peer_env.configure(1)  # Before torch loads its OpenMP runtime; the worker processes inherit it.
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import ddp_harness  # noqa: E402

batch, n_in, hidden, n_out = 128, 784, 256, 10


def train(rank, port, results):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=workers)
    torch.manual_seed(5)  # The same initial parameters on every rank (DDP broadcasts rank 0's anyway).
    model = torch.nn.parallel.DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(n_in, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, n_out)))
    opt = torch.optim.Adam(model.parameters(), lr=0.001)
    generator = torch.Generator().manual_seed(5 + rank)
    x = torch.rand(batch, n_in, generator=generator)
    labels = torch.tensor([i % n_out for i in range(batch)])
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), labels).backward()  # The gradients are all-reduced here.
        opt.step()

    ddp_harness.time_steps(step, rank, batch * workers, warmup, repeats, steps, results)


if __name__ == "__main__":
    median = ddp_harness.run(train, workers, repeats)
    print(f"PyTorch {torch.__version__} DDP (gloo) MLP 784-256-10 Adam, {workers} process(es), batch {batch} per process: "
          f"{median:.0f} examples/s median ({1000 * batch * workers / median:.2f} ms/step)")
    print(f"RESULT examples_per_s={median:.1f}")
