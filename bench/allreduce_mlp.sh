#!/usr/bin/env bash
# Synchronous data-parallel training of the bench MLP (784-256-10, Adam, batch 128 per
# process) on 2 processes without a ps, in one run: tensorweave.horovod's
# DistributedOptimizer (python/examples/allreduce_mlp.py --time, one 25 MB bucket) and
# PyTorch DistributedDataParallel with gloo (bench/torch_dp_training.py); prints the ratio.
# The ps modes are bench/dp_training.sh.
#   bench/allreduce_mlp.sh [steps per repeat] [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-100}
repeats=${2:-5}
source bench/lib.sh
build_targets _core tw_python
result() { show | grep RESULT | sed 's/.*=//'; }
tw=$(PYTHONPATH=build/python /usr/bin/python3 python/examples/allreduce_mlp.py --time "$steps" --repeats "$repeats" \
       --optimizer adam --batch 128 --bucket_bytes 26214400 | result)
torch=$(peer bench/torch_dp_training.py 2 "$steps" "$repeats" 30 | result)
awk -v t="$tw" -v p="$torch" 'BEGIN {
  printf "2 workers, all-reduce, examples/s: tensorweave %.0f, PyTorch DDP (gloo) %.0f; tensorweave / PyTorch %.2fx (above 1: tensorweave is faster)\n", t, p, t / p }'
