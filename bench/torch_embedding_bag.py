"""The peer of bench/embedding_training.py: the same model (a 1,000,000 x 64 table, batch
512 per worker of 20 ids averaged, a dense head 64-64-1 with a logistic loss, SGD) as
nn.EmbeddingBag(mode='mean', sparse=True) trained by WORKERS processes under
DistributedDataParallel (gloo) on loopback, 1 thread each. The table's gradient is sparse
(sparse=True): DDP all-reduces it on gloo's sparse path (the indices and rows of each
worker, gathered), not as a dense 256 MB tensor; the head's gradient is all-reduced densely.
Usage: torch_embedding_bag.py WORKERS STEPS REPEATS WARMUP"""
import sys

workers = int(sys.argv[1]) if len(sys.argv) > 1 else 2
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 50
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
warmup = int(sys.argv[4]) if len(sys.argv) > 4 else 10
import peer_env  # noqa: E402

peer_env.configure(1)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import ddp_harness  # noqa: E402

VOCAB, DIM, BATCH, IDS = 1_000_000, 64, 512, 20


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(VOCAB, DIM, mode="mean", sparse=True)
        torch.nn.init.uniform_(self.bag.weight, -0.05, 0.05)
        self.head = torch.nn.Sequential(torch.nn.Linear(DIM, DIM), torch.nn.ReLU(), torch.nn.Linear(DIM, 1))

    def forward(self, ids):
        return self.head(self.bag(ids))


def train(rank, port, results):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=workers)
    torch.manual_seed(5)
    model = torch.nn.parallel.DistributedDataParallel(Model())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    generator = torch.Generator().manual_seed(5 + rank)
    ids = torch.randint(0, VOCAB, (BATCH, IDS), generator=generator)
    labels = torch.randint(0, 2, (BATCH, 1), generator=generator).float()
    loss_fn = torch.nn.BCEWithLogitsLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(ids), labels).backward()  # DDP all-reduces the gradients here.
        opt.step()

    ddp_harness.time_steps(step, rank, BATCH * workers, warmup, repeats, steps, results)


if __name__ == "__main__":
    median = ddp_harness.run(train, workers, repeats)
    print(f"PyTorch {torch.__version__} DDP (gloo) EmbeddingBag({VOCAB}, {DIM}, mean, sparse) + 64-64-1 SGD, "
          f"{workers} process(es), batch {BATCH} x {IDS} ids per process: {median:.0f} examples/s median")
    print(f"RESULT examples_per_s={median:.1f}")
