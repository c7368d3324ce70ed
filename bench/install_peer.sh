#!/usr/bin/env bash
# The peers of the benchmarks: current PyTorch and the pinned TensorFlow (tensorflow-cpu,
# the oracle's version), both from PyPI, in a virtual environment of their own under the
# build tree (build/peer-venv), created once and reused while it has the pinned versions.
# Prints the environment's python.
#   bench/install_peer.sh
# PyPI's Linux torch wheel is its CUDA build: libtorch_cuda.so is linked against CUDA
# libraries (cuFile, cuSPARSELt, NVSHMEM, cuBLAS...), so `pip install --no-deps torch` plus
# its pure-Python dependencies fails to import (libcufile.so.0 missing); the CPU-only
# wheels are not on PyPI. So torch comes with its nvidia-* dependencies (~3 GB on disk,
# never loaded onto a GPU here: the benchmarks run on the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
TORCH_VERSION=2.15.0
TF_VERSION=2.20.0
venv=build/peer-venv
python="$PWD/$venv/bin/python"
check="import torch, tensorflow as tf, sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH_VERSION' or tf.__version__ != '$TF_VERSION')"
if ! TF_CPP_MIN_LOG_LEVEL=3 "$python" -c "$check" 2>/dev/null; then
  echo "== installing the peers torch==$TORCH_VERSION and tensorflow-cpu==$TF_VERSION into $venv (PyPI; once)" >&2
  mkdir -p build
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check "torch==$TORCH_VERSION" "tensorflow-cpu==$TF_VERSION" >&2
  TF_CPP_MIN_LOG_LEVEL=3 "$python" -c "$check"
fi
echo "$python"
