#!/usr/bin/env bash
# Issue 18's LSTM training step (batch 32, 50 steps, 128 -> 256, dynamic_rnn, Adam) against
# current PyTorch's nn.LSTM on 1 thread, in one run (tensorweave through its Python module,
# bench/lstm_training.py; PyTorch in bench/torch_lstm_training.py); prints the ratio.
#   bench/lstm_training.sh [steps]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-20}
source bench/lib.sh
build_targets tw_python
tw=$(PYTHONPATH=build/python /usr/bin/python3 bench/lstm_training.py 1 "$steps" | show | grep RESULT)
pt=$(peer bench/torch_lstm_training.py 1 "$steps" | show | grep RESULT)
t=$(result_field "$tw" ms_per_step)
p=$(result_field "$pt" ms_per_step)
awk -v t="$t" -v p="$p" 'BEGIN {
  printf "1 thread, ms/step: tensorweave %.1f, PyTorch %.1f; PyTorch / tensorweave %.2fx (above 1: tensorweave is faster)\n",
         t, p, p / t }'
