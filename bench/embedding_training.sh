#!/usr/bin/env bash
# Issue 17's embedding benchmark in one run: a 1,000,000 x 64 table, batch 512 x 20 ids
# (mean combiner), dense head, SGD; tensorweave on 1 ps + 2 workers (between-graph, sparse
# updates on the ps; bench/embedding_training.py), synchronous (SyncReplicasOptimizer with
# sparse accumulators, as DDP) and asynchronous, against current PyTorch
# nn.EmbeddingBag(sparse=True) under DDP gloo on 2 processes (bench/torch_embedding_bag.py);
# prints the ratios and tensorweave's wire bytes per step.
#   bench/embedding_training.sh [steps per repeat] [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-50}
repeats=${2:-5}
source bench/lib.sh
build_targets tw
sync_line=$(/usr/bin/python3 bench/embedding_training.py "$steps" "$repeats" 10 --sync | show | grep RESULT)
async_line=$(/usr/bin/python3 bench/embedding_training.py "$steps" "$repeats" 10 | show | grep RESULT)
torch_line=$(peer bench/torch_embedding_bag.py 2 "$steps" "$repeats" 10 | show | grep RESULT)
sync=$(result_field "$sync_line" examples_per_s)
async=$(result_field "$async_line" examples_per_s)
bytes=$(result_field "$sync_line" bytes_per_step)
torch=$(result_field "$torch_line" examples_per_s)
awk -v s="$sync" -v a="$async" -v p="$torch" -v b="$bytes" 'BEGIN {
  printf "examples/s: tensorweave sync %.0f, async %.0f; PyTorch DDP (sync) %.0f; tensorweave sync / PyTorch %.2fx, async / PyTorch %.2fx (above 1: tensorweave is faster); tensorweave moves %.1f MB per worker step, the table is 256 MB\n",
         s, a, p, s / p, a / p, b / 1e6 }'
