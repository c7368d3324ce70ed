#!/usr/bin/env bash
# Executor overhead against PyTorch eager, in one run; prints both and the ratios.
#   bench/executor_overhead.sh [nodes] [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-10000}
repeats=${2:-51}
scripts/setup.sh executor_overhead >/dev/null
bench/install_peer.sh
tw=$(build/bench/executor_overhead --nodes "$nodes" --repeats "$repeats" | tee /dev/stderr | grep RESULT)
pt=$(/usr/bin/python3 bench/torch_eager_adds.py "$nodes" "$repeats" | grep RESULT)
get() { echo "$1" | sed -E "s/.*$2=([0-9.]+).*/\1/"; }
tw_chain=$(get "$tw" chain_us_per_node); tw_wide=$(get "$tw" wide_us_per_node)
pt_chain=$(get "$pt" chain_us_per_node); pt_wide=$(get "$pt" wide_us_per_node)
printf "PyTorch eager chain:  %.3f us/add   independent: %.3f us/add\n" "$pt_chain" "$pt_wide"
awk -v tc="$tw_chain" -v tw="$tw_wide" -v pc="$pt_chain" -v pw="$pt_wide" 'BEGIN {
  printf "ratio (PyTorch / tensorweave; above 1 means tensorweave is faster): chain %.2fx, independent %.2fx\n", pc / tc, pw / tw
  printf "target chain <= 0.5 us/node: %s\n", (tc <= 0.5 ? "met" : "NOT met")
}'
