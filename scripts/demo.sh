#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh tw hello_238 mean_of_random

echo
echo "== the seeds' first graph: x = 2; y = (x + 300) + (x - 66)"
build/examples/hello_238
echo
echo "== the seeds' mean of 100 random values, fed through a placeholder"
build/examples/mean_of_random
echo
echo "== the same graph as a GraphDef file, run with 'tw run'"
build/tools/tw run --graph examples/graphs/mean.pbtxt --feed 'x=[1,2,3,4]' --fetch mean
