#!/usr/bin/env bash
# Per-iteration overhead of an empty while loop: tensorweave's tf.while_loop, TensorFlow's
# (v1 control flow) and a Python for loop of PyTorch adds, in one run.
#   bench/while_loop_overhead.sh [iterations] [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=${1:-100000}
repeats=${2:-5}
source bench/lib.sh
build_targets tw_python
tw=$(PYTHONPATH=build/python /usr/bin/python3 bench/while_loop_overhead.py tensorweave "$iterations" "$repeats" | show | grep RESULT)
tf=$(peer bench/while_loop_overhead.py tensorflow "$iterations" "$repeats" | show | grep RESULT)
pt=$(peer bench/while_loop_overhead.py torch "$iterations" "$repeats" | show | grep RESULT)
awk -v t="$(result_field "$tw" us_per_iteration)" -v f="$(result_field "$tf" us_per_iteration)" \
    -v p="$(result_field "$pt" us_per_iteration)" 'BEGIN {
  printf "us/iteration: tensorweave %.3f, TensorFlow %.3f, PyTorch (Python loop) %.3f\n", t, f, p }'
