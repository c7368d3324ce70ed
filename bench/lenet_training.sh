#!/usr/bin/env bash
# The LeNet-5-style training step of issue 16 against current PyTorch on 1 and 2 threads,
# in one run (tensorweave through its Python module, bench/lenet_training.py; PyTorch in
# bench/torch_lenet_training.py); prints the ratios.
#   bench/lenet_training.sh [steps]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-30}
source bench/lib.sh
build_targets tw_python
for threads in 1 2; do
  tw=$(PYTHONPATH=build/python /usr/bin/python3 bench/lenet_training.py "$threads" "$steps" | show | grep RESULT)
  pt=$(peer bench/torch_lenet_training.py "$threads" "$steps" | show | grep RESULT)
  awk -v t="${tw##*=}" -v p="${pt##*=}" -v n="$threads" 'BEGIN {
    printf "%d thread(s), ms/step: tensorweave %.2f, PyTorch %.2f; PyTorch / tensorweave %.2fx (above 1: tensorweave is faster)\n",
           n, t, p, p / t }'
done
