#!/usr/bin/env bash
# Issue 20's input pipeline benchmark in one run: records/s parsing 28x28 tf.train.Example
# records into batches of 128 through tf.data (tensorweave and TensorFlow, the same program:
# bench/data_pipeline.py) and through PyTorch's DataLoader with 2 workers doing the same
# decode from the same files (bench/torch_data_pipeline.py); then an MLP training step fed by
# tf.data against the same step on a preloaded batch (the pipeline hides its cost when the
# two are equal). Prints the ratios.
#   bench/data_pipeline.sh [records] [passes] [steps]
set -euo pipefail
cd "$(dirname "$0")/.."
records=${1:-40000}
passes=${2:-5}
steps=${3:-200}
source bench/lib.sh
build_targets tw_python
dir=$(mktemp -d /tmp/tw_data_pipeline.XXXXXX)
trap 'rm -rf "$dir"' EXIT
tw() { PYTHONPATH=build/python /usr/bin/python3 bench/data_pipeline.py "$@"; }
tw write "$dir" "$records" >&2
ours=$(tw read "$dir" "$passes" | show | grep RESULT)
theirs=$(peer bench/data_pipeline.py --tf read "$dir" "$passes" | show | grep RESULT)
torch=$(peer bench/torch_data_pipeline.py "$dir" "$passes" | show | grep RESULT)
o=$(result_field "$ours" records_per_s)
t=$(result_field "$theirs" records_per_s)
p=$(result_field "$torch" records_per_s)
awk -v o="$o" -v t="$t" -v p="$p" 'BEGIN {
  printf "records/s: tensorweave %.0f, TensorFlow %.0f, PyTorch DataLoader %.0f; tensorweave / TensorFlow %.2fx, tensorweave / PyTorch %.2fx\n",
         o, t, p, o / t, o / p }'
step=$(tw train "$dir" "$steps" | show | grep RESULT)
tf_step=$(peer bench/data_pipeline.py --tf train "$dir" "$steps" | show | grep RESULT)
awk -v a="$(result_field "$step" piped_ms)" -v b="$(result_field "$step" preloaded_ms)" \
    -v c="$(result_field "$tf_step" piped_ms)" -v d="$(result_field "$tf_step" preloaded_ms)" 'BEGIN {
  printf "MLP step ms, fed by tf.data / preloaded: tensorweave %.2f / %.2f (%.3f), TensorFlow %.2f / %.2f (%.3f)\n",
         a, b, a / b, c, d, c / d }'
