#!/usr/bin/env bash
# Issue 18's LSTM training step (batch 32, 50 steps, 128 -> 256, Adam; BasicLSTMCell through
# dynamic_rnn (run as one BlockLSTM), the same as a while loop (TW_FUSED_DYNAMIC_RNN=0) and
# LSTMBlockFusedCell) against
# current PyTorch's nn.LSTM on 1 thread, in one run (tensorweave through its Python module,
# bench/lstm_training.py; PyTorch in bench/torch_lstm_training.py); prints the ratio.
#   bench/lstm_training.sh [steps]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-20}
source bench/lib.sh
build_targets tw_python
pt=$(peer bench/torch_lstm_training.py 1 "$steps" | show | grep RESULT)
p=$(result_field "$pt" ms_per_step)
# TF1's two ways (BasicLSTMCell through dynamic_rnn, LSTMBlockFusedCell), and dynamic_rnn's loop.
for cell in basic loop fused; do
  tw=$(PYTHONPATH=build/python /usr/bin/python3 bench/lstm_training.py 1 "$steps" "$cell" | show | grep RESULT)
  t=$(result_field "$tw" ms_per_step)
  awk -v t="$t" -v p="$p" -v cell="$cell" 'BEGIN {
    printf "1 thread, ms/step: tensorweave (%s) %.1f, PyTorch %.1f; PyTorch / tensorweave %.2fx (above 1: tensorweave is faster)\n",
           cell, t, p, p / t }'
done
