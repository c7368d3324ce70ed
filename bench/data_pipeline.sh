#!/usr/bin/env bash
# Issue 20's input pipeline benchmark in one run: records/s parsing 28x28 tf.train.Example
# records into batches of 128 through tf.data (tensorweave and TensorFlow, the same program:
# bench/data_pipeline.py) and through PyTorch's DataLoader with 2 workers doing the same
# decode from the same files (bench/torch_data_pipeline.py); then an MLP training step fed by
# tf.data (per-record parse, batched parse, and an in-memory dataset: the iterator's own
# cost) against the same step on a preloaded batch (the pipeline hides its cost when the
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
p=$(result_field "$torch" records_per_s)
for form in per_record batched; do
  awk -v form="$form" -v o="$(result_field "$ours" $form)" -v t="$(result_field "$theirs" $form)" -v p="$p" 'BEGIN {
    printf "records/s, %s parse: tensorweave %.0f, TensorFlow %.0f, PyTorch DataLoader (its best) %.0f; tensorweave / TensorFlow %.2fx, tensorweave / PyTorch %.2fx\n",
           form, o, t, p, o / t, o / p }'
done
step=$(tw train "$dir" "$steps" | show | grep RESULT)
tf_step=$(peer bench/data_pipeline.py --tf train "$dir" "$steps" | show | grep RESULT)
for form in per_record batched in_memory; do
  awk -v form="$form" -v a="$(result_field "$step" $form)" -v b="$(result_field "$tf_step" $form)" 'BEGIN {
    printf "MLP step fed by tf.data (%s) / on a preloaded batch: tensorweave %.3f, TensorFlow %.3f\n", form, a, b }'
done
