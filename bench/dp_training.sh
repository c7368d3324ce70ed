#!/usr/bin/env bash
# Synchronous data-parallel training examples/s against PyTorch DistributedDataParallel
# (gloo), 1 and 2 workers, in one run; prints the ratios and each side's scaling.
#   bench/dp_training.sh [steps per repeat] [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-100}
repeats=${2:-5}
scripts/setup.sh dp_training tw >/dev/null
bench/install_peer.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
declare -A tw pt
for workers in 1 2; do
  r=$(build/bench/dp_training --workers "$workers" --steps "$steps" --repeats "$repeats" | tee /dev/stderr | grep RESULT)
  tw[$workers]=${r##*=}
  r=$(/usr/bin/python3 bench/torch_dp_training.py "$workers" "$steps" "$repeats" 30 | tee /dev/stderr | grep RESULT)
  pt[$workers]=${r##*=}
  awk -v t="${tw[$workers]}" -v p="${pt[$workers]}" -v n="$workers" 'BEGIN {
    printf "%d worker(s): tensorweave / PyTorch examples/s = %.2fx (above 1: tensorweave is faster)\n", n, t / p }'
done
awk -v t1="${tw[1]}" -v t2="${tw[2]}" -v p1="${pt[1]}" -v p2="${pt[2]}" 'BEGIN {
  printf "scaling 1 -> 2 workers: tensorweave %.2fx, PyTorch %.2fx\n", t2 / t1, p2 / p1 }'
