#!/usr/bin/env bash
# Synchronous data-parallel training examples/s against PyTorch DistributedDataParallel
# (gloo), 1 and 2 workers, in one run: tensorweave's in-graph replication (seed 003) and
# between-graph replication with SyncReplicasOptimizer; prints the ratios and each side's
# scaling.
#   bench/dp_training.sh [steps per repeat] [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-100}
repeats=${2:-5}
scripts/setup.sh dp_training tw >/dev/null
bench/install_peer.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
declare -A rate
result() { tee /dev/stderr | grep RESULT | sed 's/.*=//'; }
for workers in 1 2; do
  for mode in in_graph sync_replicas; do
    rate[$mode,$workers]=$(build/bench/dp_training --mode "$mode" --workers "$workers" --steps "$steps" \
                           --repeats "$repeats" | result)
  done
  rate[torch,$workers]=$(/usr/bin/python3 bench/torch_dp_training.py "$workers" "$steps" "$repeats" 30 | result)
done
for workers in 1 2; do
  for mode in in_graph sync_replicas; do
    awk -v t="${rate[$mode,$workers]}" -v p="${rate[torch,$workers]}" -v n="$workers" -v m="$mode" 'BEGIN {
      printf "%d worker(s), %s: tensorweave %.0f / PyTorch %.0f examples/s = %.2fx (above 1: tensorweave is faster)\n",
             n, m, t, p, t / p }'
  done
done
for side in in_graph sync_replicas torch; do
  awk -v a="${rate[$side,1]}" -v b="${rate[$side,2]}" -v s="$side" 'BEGIN {
    printf "scaling 1 -> 2 workers, %s: %.2fx\n", s, b / a }'
done
