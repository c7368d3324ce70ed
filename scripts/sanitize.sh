#!/usr/bin/env bash
# Builds tensorweave with a sanitizer and runs its tests (see RELIABILITY.md).
#   scripts/sanitize.sh asan   ASan + UBSan build in build-asan/, the whole ctest suite
#   scripts/sanitize.sh tsan   TSan build in build-tsan/, the threaded parts (executor,
#                              rendezvous, queues, runtime, distributed)
#   TW_JOBS=N sets the build's parallel jobs (default: cores); CXX=clang++ uses clang
#   (always for tsan: needs the clang and libclang-rt-14-dev packages).
# Any sanitizer report aborts the test that triggered it, so ctest fails on it.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
jobs=${TW_JOBS:-$(nproc)}
export CCACHE_BASEDIR="$PWD"

case "$mode" in
  asan)
    dir=build-asan; sanitize=address
    targets=(all)
    tests=()
    ;;
  tsan)
    dir=build-tsan; sanitize=thread
    # clang only: gcc defines __SANITIZE_THREAD__, with which protobuf's map_field.h adds
    # fields to MapFieldBase, so our code and Debian's (uninstrumented) libprotobuf
    # disagree on its layout and crash in map code (seen in ClusterSpec's TF_CONFIG
    # parsing and in text GraphDefs). clang does not define it.
    export CXX=${CXX:-clang++}
    targets=(tw_runtime_tests tw_kernels_tests tw_distributed_tests tw_integration_tests)
    # The multi-threaded and multi-process suites: executor (loops and dead tensors too)
    # and rendezvous, queues and accumulators, worker and master, in-process clusters and
    # `tw server` processes, hostile clients and request limits, collectives.
    tests=(-R '^(ExecutorTest|ExecutorLoopTest|ExecutorDeadTest|RunOpSmoke|PlacerTest|FIFOQueueTest|ConditionalAccumulatorTest|WorkerTest|TensorWireTest|ClusterSpecTest|ResourceLimitsTest|DistributedTest|DataParallelTest|SyncReplicasClusterTest|MonitoredSessionClusterTest|ResourceLimitFlagsTest|RequestLimitsTest|OrphanedStepTest|SessionGcTest|StepTimeoutTest|HostileClientTest|HostileClientLimitsTest|KernelOutputLimitsTest|FileAccessRootTest|TfMasterServiceTest|TfMasterServiceBudgetTest|CollectiveRpcTest|CollectiveTest)\.'
           # Not these two under TSan's 5-20x slowdown and shadow memory: 256 MiB made and
           # sent between tasks outlasts the 30 s RPC deadline, and a peak RSS bound
           # measures the sanitizer (both run in the normal and ASan suites).
           -E '^(DistributedTest\.LargeTensorCrossesTasksIntact|RequestLimitsTest\.RepliesHeldForNeverReadingClientsAreCapped)$')
    ;;
  *) echo "usage: $0 asan|tsan" >&2; exit 2 ;;
esac

echo "== configuring $dir/ (TW_SANITIZE=$sanitize)"
# CXX=clang++ builds with clang instead (it compiles the Eigen kernels much faster).
# -O1, as the sanitizers' authors advise: reports keep their stacks, and gcc compiles the
# instrumented Eigen kernels in about half the time of -O3 (linalg_kernels.cc: 101 s / 185 s).
# Without the optional MPI exchange: scripts/mpi_test.sh tests it in the normal build.
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
      -DTW_SANITIZE="$sanitize" ${CXX:+-DCMAKE_CXX_COMPILER="$CXX"} \
      -DTW_BUILD_BENCH=OFF -DTW_WITH_MPI=OFF -DTW_BUILD_PYTHON="$([ "$mode" = asan ] && echo ON || echo OFF)" >/dev/null
echo "== building ${targets[*]} with $jobs jobs"
cmake --build "$dir" -j "$jobs" --target "${targets[@]}"

# Leak checks stay on; a failed huge allocation returns null (the code turns that into
# ResourceExhausted) instead of aborting; the suppression files list only findings in the
# Debian libraries we link against (never our own code).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:suppressions=$PWD/scripts/sanitizers/asan.supp"
export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# TSan writes each process's reports to $dir/tsan-reports/report.PID: the `tw server`
# processes a test starts are checked too (a report there, e.g. while a server stops,
# fails no test by itself), and the run fails if any file is there.
reports="$PWD/$dir/tsan-reports"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/sanitizers/tsan.supp:log_path=$reports/report"
# The tests that compare with real TensorFlow run it unsanitized, from build/tf-venv.
TW_TF_PYTHON=$(scripts/tf_env.sh)
export TW_TF_PYTHON
echo "== running the $mode tests"
cd "$dir"
rm -rf "$reports" && mkdir -p "$reports"
# Sanitized code runs 2-10x slower: a longer per-test limit.
status=0
ctest --output-on-failure -j "$jobs" --timeout 900 "${tests[@]}" || status=$?
if [ "$mode" = tsan ] && [ -n "$(ls -A "$reports")" ]; then
  cat "$reports"/*
  echo "== ThreadSanitizer reports from $(ls "$reports" | wc -l) processes (above; files in $reports)" >&2
  status=1
fi
exit $status
