#!/usr/bin/env bash
# Issue 17's embedding benchmark in one run: a 1,000,000 x 64 table, batch 512 x 20 ids
# (mean combiner), dense head, SGD; tensorweave on 1 ps + 2 workers (between-graph,
# asynchronous, sparse updates on the ps; bench/embedding_training.py) against current
# PyTorch nn.EmbeddingBag(sparse=True) under DDP gloo on 2 processes
# (bench/torch_embedding_bag.py); prints the ratio and tensorweave's wire bytes per step.
#   bench/embedding_training.sh [steps per repeat] [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-50}
repeats=${2:-5}
source bench/lib.sh
build_targets tw
tw_line=$(/usr/bin/python3 bench/embedding_training.py "$steps" "$repeats" 10 | show | grep RESULT)
torch_line=$(peer bench/torch_embedding_bag.py 2 "$steps" "$repeats" 10 | show | grep RESULT)
tw=$(result_field "$tw_line" examples_per_s)
bytes=$(result_field "$tw_line" bytes_per_step)
torch=$(result_field "$torch_line" examples_per_s)
awk -v t="$tw" -v p="$torch" -v b="$bytes" 'BEGIN {
  printf "examples/s: tensorweave %.0f, PyTorch DDP %.0f; tensorweave / PyTorch %.2fx (above 1: tensorweave is faster); tensorweave moves %.1f MB per worker step, the table is 256 MB\n",
         t, p, t / p, b / 1e6 }'
