#!/usr/bin/env bash
# TensorFlow, the reference the tests ask for right answers: a virtual environment in
# build/tf-venv with the pinned tensorflow-cpu from PyPI (it brings its own NumPy, so it
# lives apart from Debian's python3 that imports tensorweave). Created once, reused while
# it has the pinned version; pip's cache (~/.cache/pip) spares later downloads.
# Prints the environment's python (tests read it from TW_TF_PYTHON or find it there).
#   scripts/tf_env.sh            install if needed, print the python
set -euo pipefail
cd "$(dirname "$0")/.."
TF_VERSION=2.20.0
TF_KERAS_VERSION=2.20.1
venv=build/tf-venv
python="$PWD/$venv/bin/python"
if ! "$python" -c "import tensorflow as tf, sys; sys.exit(tf.__version__ != '$TF_VERSION')" 2>/dev/null; then
  echo "== installing tensorflow-cpu==$TF_VERSION into $venv (PyPI; once)" >&2
  mkdir -p build
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check "tensorflow-cpu==$TF_VERSION" >&2
  "$python" -c "import tensorflow as tf; assert tf.__version__ == '$TF_VERSION', tf.__version__" 2>/dev/null
fi
# tf_keras: TF 2.20's tf.compat.v1.layers (the oracle of test_layers.py) needs the legacy
# Keras 2 beside Keras 3; added to an existing environment too.
if ! "$python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('tf_keras') is None)" 2>/dev/null; then
  echo "== installing tf_keras==$TF_KERAS_VERSION into $venv (PyPI; once)" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps "tf_keras==$TF_KERAS_VERSION" >&2
fi
echo "$python"
