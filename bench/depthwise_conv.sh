#!/usr/bin/env bash
# DepthwiseConv2dNative and its two backprops alone (issue 16: 3x3, 64 channels, multiplier
# 1, 56x56, batch 8), tensorweave next to current PyTorch, on 1 and 2 threads in one run.
#   bench/depthwise_conv.sh [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-10}
source bench/lib.sh
build_targets tw_python
for threads in 1 2; do
  PYTHONPATH=build/python /usr/bin/python3 bench/depthwise_conv.py "$threads" "$reps"
  peer bench/torch_depthwise_conv.py "$threads" "$reps"
done
