#!/usr/bin/env bash
# Conv2D and its two backprops alone (issue 16: 3x3, 64 -> 64, 56x56, batch 8) in GFLOP/s,
# tensorweave next to current PyTorch and next to a 1024^3 GEMM (the limit), on 1 and 2
# threads in one run.
#   bench/conv2d_gflops.sh [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-10}
source bench/lib.sh
build_targets tw_python
for threads in 1 2; do
  PYTHONPATH=build/python /usr/bin/python3 bench/conv2d_gflops.py "$threads" "$reps" | grep -v RESULT
  peer bench/torch_conv2d_gflops.py "$threads" "$reps" | grep -v RESULT
done
