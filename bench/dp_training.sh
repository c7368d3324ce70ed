#!/usr/bin/env bash
# Synchronous data-parallel training examples/s on 1 ps + 1 and 2 workers, in one run:
# tensorweave's in-graph replication (seed 003) and between-graph replication with
# SyncReplicasOptimizer on `tw server` processes, TensorFlow doing the same on its own
# servers (bench/tf_dp_training.py, both modes), and current PyTorch
# DistributedDataParallel (gloo); prints the ratios and each side's scaling.
#   bench/dp_training.sh [steps per repeat] [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-100}
repeats=${2:-5}
source bench/lib.sh
build_targets dp_training tw
declare -A rate
result() { show | grep RESULT | sed 's/.*=//'; }
for workers in 1 2; do
  for mode in in_graph sync_replicas; do
    rate[tw_$mode,$workers]=$(build/bench/dp_training --mode "$mode" --workers "$workers" --steps "$steps" \
                              --repeats "$repeats" | result)
    rate[tf_$mode,$workers]=$(peer bench/tf_dp_training.py "$mode" "$workers" "$steps" "$repeats" 30 | result)
  done
  rate[torch,$workers]=$(peer bench/torch_dp_training.py "$workers" "$steps" "$repeats" 30 | result)
done
for workers in 1 2; do
  for mode in in_graph sync_replicas; do
    awk -v t="${rate[tw_$mode,$workers]}" -v f="${rate[tf_$mode,$workers]}" -v p="${rate[torch,$workers]}" \
        -v n="$workers" -v m="$mode" 'BEGIN {
      printf "%d worker(s), %s, examples/s: tensorweave %.0f, TensorFlow %.0f, PyTorch DDP %.0f; tensorweave / TensorFlow %.2fx, tensorweave / PyTorch %.2fx (above 1: tensorweave is faster)\n",
             n, m, t, f, p, t / f, t / p }'
  done
done
for side in tw_in_graph tw_sync_replicas tf_in_graph tf_sync_replicas torch; do
  awk -v a="${rate[$side,1]}" -v b="${rate[$side,2]}" -v s="$side" 'BEGIN {
    printf "scaling 1 -> 2 workers, %s: %.2fx\n", s, b / a }'
done
