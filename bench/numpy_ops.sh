#!/usr/bin/env bash
# Everyday ops (exp, tanh, sqrt, sum, max on 1M and 16M float32; batched 256x256 Cholesky and
# inverse) against NumPy in one process and one run, tensorweave with 1 thread and with all
# threads (bench/numpy_ops.py). Prints medians and ratios (above 1: tensorweave is faster).
#   bench/numpy_ops.sh [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
repeats=${1:-21}
if [ "${TW_BENCH_BUILT:-0}" != 1 ]; then scripts/setup.sh tw_python >/dev/null; fi
PYTHONPATH=build/python /usr/bin/python3 bench/numpy_ops.py "$repeats"
