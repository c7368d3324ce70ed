#!/usr/bin/env bash
# Executor overhead against TensorFlow (tf.compat.v1 Session) and current PyTorch eager,
# in one run; prints all three and the ratios.
#   bench/executor_overhead.sh [nodes] [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-10000}
repeats=${2:-51}
source bench/lib.sh
build_targets executor_overhead
tw=$(build/bench/executor_overhead --nodes "$nodes" --repeats "$repeats" | show | grep RESULT)
tf=$(peer bench/tf_executor_overhead.py "$nodes" "$repeats" | show | grep RESULT)
pt=$(peer bench/torch_eager_adds.py "$nodes" "$repeats" | show | grep RESULT)
for kind in chain wide; do
  awk -v t="$(result_field "$tw" ${kind}_us_per_node)" -v f="$(result_field "$tf" ${kind}_us_per_node)" \
      -v p="$(result_field "$pt" ${kind}_us_per_node)" -v k="$kind" 'BEGIN {
    printf "%-5s us/add: tensorweave %.3f, TensorFlow %.3f, PyTorch %.3f; TensorFlow / tensorweave %.2fx, PyTorch / tensorweave %.2fx (above 1: tensorweave is faster)\n",
           k, t, f, p, f / t, p / t }'
done
awk -v tc="$(result_field "$tw" chain_us_per_node)" 'BEGIN { printf "target chain <= 0.5 us/node: %s\n", (tc <= 0.5 ? "met" : "NOT met") }'
