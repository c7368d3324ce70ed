"""The PyTorch peer of bench/data_pipeline.sh: the same records (bench/data_pipeline.py
write) read by a torch DataLoader with 2 worker processes, each reading its own files'
TFRecord framing in Python (length, its CRC, data, its CRC; CRCs not checked, which
TensorFlow's reader does), parsing tf.train.Example with TensorFlow's generated protobuf
class (the C++ upb parser) and decoding the image with NumPy. Two variants, both measured:
  per-record  an IterableDataset of (image, label), DataLoader(batch_size=128) collates;
  batched     the workers build whole batches of 128 (DataLoader(batch_size=None)).
RESULT is the faster (median records/s over the passes).
Usage: torch_data_pipeline.py DIR PASSES"""
import glob
import os
import statistics
import struct
import sys
import time
import warnings

import numpy as np
import peer_env

peer_env.configure(1)
import torch  # noqa: E402
from tensorflow.core.example import example_pb2  # noqa: E402
from torch.utils.data import DataLoader, IterableDataset, get_worker_info  # noqa: E402

BATCH, WORKERS = 128, 2
# Images are read-only views of the records (np.frombuffer) that nothing writes to.
warnings.filterwarnings("ignore", message="The given NumPy array is not writable")


def records(path):
    with open(path, "rb") as f:
        while True:
            header = f.read(12)
            if len(header) < 12:
                return
            (length,) = struct.unpack("<Q", header[:8])
            data = f.read(length)
            f.read(4)
            yield data


def decode(record):
    feature = example_pb2.Example.FromString(record).features.feature
    image = np.frombuffer(feature["image_raw"].bytes_list.value[0], np.float32)
    return image, feature["label"].int64_list.value[0]


class Records(IterableDataset):
    def __init__(self, paths, batched):
        self.paths, self.batched = paths, batched

    def __iter__(self):
        info = get_worker_info()
        mine = self.paths[info.id::info.num_workers] if info else self.paths
        images, labels = [], []
        for path in mine:
            for record in records(path):
                image, label = decode(record)
                if not self.batched:
                    yield torch.from_numpy(image), label
                    continue
                images.append(image)
                labels.append(label)
                if len(images) == BATCH:
                    yield torch.from_numpy(np.stack(images)), torch.tensor(labels, dtype=torch.int32)
                    images, labels = [], []
        if images:
            yield torch.from_numpy(np.stack(images)), torch.tensor(labels, dtype=torch.int32)


def measure(paths, batched, passes):
    loader = DataLoader(Records(paths, batched), batch_size=None if batched else BATCH, num_workers=WORKERS,
                        persistent_workers=True, prefetch_factor=4)
    rates = []
    for p in range(passes + 1):  # The first pass starts the workers and warms the file cache.
        n, start = 0, time.perf_counter()
        for _, labels in loader:
            n += len(labels)
        if p:
            rates.append(n / (time.perf_counter() - start))
    return n, statistics.median(rates)


def main():
    directory, passes = sys.argv[1], int(sys.argv[2])
    paths = sorted(glob.glob(os.path.join(directory, "part-*.tfrecord")))
    best = 0
    for name, batched in (("per-record", False), ("batched", True)):
        n, rate = measure(paths, batched, passes)
        print("PyTorch DataLoader (%d workers, %s): %d records a pass, median %.0f records/s" %
              (WORKERS, name, n, rate))
        best = max(best, rate)
    print("RESULT records_per_s=%.0f" % best)


if __name__ == "__main__":
    main()
