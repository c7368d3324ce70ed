#!/usr/bin/env bash
# The README's second command: installs what is missing, builds everything from
# scratch-or-cache, and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
TW_SETUP_TEST=1 scripts/setup.sh
# The oracle: tests that compare with real TensorFlow run it from this environment.
TW_TF_PYTHON=$(scripts/tf_env.sh)
export TW_TF_PYTHON
echo "== running the test suite"
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 300
