#!/usr/bin/env bash
# Training step time against TensorFlow (tf.compat.v1 Session; threads and XLA tried) and
# current PyTorch (eager and torch.compile tried) on 1 and 2 threads, in one run; prints
# the ratios.
#   bench/mlp_training.sh [steps]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-300}
source bench/lib.sh
build_targets mlp_training
for threads in 1 2; do
  tw=$(build/bench/mlp_training --threads "$threads" --steps "$steps" | show | grep RESULT)
  tf=$(peer bench/tf_mlp_training.py "$threads" "$steps" | show | grep RESULT)
  pt=$(peer bench/torch_mlp_training.py "$threads" "$steps" | show | grep RESULT)
  awk -v t="${tw##*=}" -v f="${tf##*=}" -v p="${pt##*=}" -v n="$threads" 'BEGIN {
    printf "%d thread(s), ms/step: tensorweave %.3f, TensorFlow %.3f, PyTorch %.3f; TensorFlow / tensorweave %.2fx, PyTorch / tensorweave %.2fx (above 1: tensorweave is faster)\n",
           n, t, f, p, f / t, p / t }'
done
