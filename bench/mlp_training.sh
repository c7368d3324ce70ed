#!/usr/bin/env bash
# Training step time against PyTorch on 1 and 2 threads, in one run; prints the ratios.
#   bench/mlp_training.sh [steps]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-300}
scripts/setup.sh mlp_training >/dev/null
bench/install_peer.sh
for threads in 1 2; do
  tw=$(build/bench/mlp_training --threads "$threads" --steps "$steps" | tee /dev/stderr | grep RESULT)
  pt=$(/usr/bin/python3 bench/torch_mlp_training.py "$threads" "$steps" | tee /dev/stderr | grep RESULT)
  awk -v t="${tw##*=}" -v p="${pt##*=}" -v n="$threads" 'BEGIN {
    printf "%d thread(s): PyTorch / tensorweave step time = %.2fx (above 1: tensorweave is faster)\n", n, p / t }'
done
