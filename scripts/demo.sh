#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh demo   # the CMake target with every binary below (examples/CMakeLists.txt)

echo
echo "== the seeds' first graph: x = 2; y = (x + 300) + (x - 66)"
build/examples/hello_238
echo
echo "== the seeds' mean of 100 random values, fed through a placeholder"
build/examples/mean_of_random
echo
echo "== the same graph as a GraphDef file, run with 'tw run'"
build/tools/tw run --graph examples/graphs/mean.pbtxt --feed 'x=[1,2,3,4]' --fetch mean
echo
echo "== seed 003's model trained in one process: a 1 -> 16 -> 1 MLP learning y = e^x"
build/examples/exp_mlp | tail -n 4
echo
echo "== distributed: a cluster of 2 tasks, y2 = x - 66 on task 1, y = (x + 300) + y2 on task 0"
build/examples/distributed_238
echo
echo "== distributed map/reduce: a mean over slices of 70 and 30 values on two tasks"
build/examples/map_reduce_mean
echo
echo "== seed 003 data-parallel: parameters on 'master', gradients of a 70/30 batch split on 'worker' and 'worker_'"
build/examples/data_parallel_exp --steps 1000 --print_every 200
echo
echo "== the main demo: a local cluster of tw server processes (1 ps + 2 workers) training a"
echo "   784-256-10 MLP synchronously data-parallel, next to the same training in one process"
build/examples/cluster_training
