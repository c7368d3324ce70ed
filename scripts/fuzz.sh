#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan + libFuzzer, in
# build-fuzz/) and runs each for a bounded time over its seed corpus and regression
# inputs (see RELIABILITY.md). Not part of the default test run.
#   scripts/fuzz.sh [seconds per target, default 60] [target...]
# New inputs go to build-fuzz/corpus/<target>/, a crash to build-fuzz/artifacts/<target>/
# (copy it to fuzz/regressions/<target>/ once fixed); the summary to build-fuzz/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(graph_def tensor_proto tensor_wire master_run_step worker_run_graph cluster_spec checkpoint)
fi
jobs=${TW_JOBS:-$(nproc)}
export CCACHE_BASEDIR="$PWD"

TW_SETUP_FUZZ=1 TW_SETUP_PACKAGES_ONLY=1 scripts/setup.sh
echo "== configuring build-fuzz/ (clang, TW_SANITIZE=fuzzer)"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
      -DTW_SANITIZE=fuzzer -DTW_BUILD_TESTS=OFF -DTW_BUILD_BENCH=OFF -DTW_BUILD_PYTHON=OFF >/dev/null
echo "== building ${targets[*]} with $jobs jobs"
cmake --build build-fuzz -j "$jobs" --target "${targets[@]/%/_fuzz}"

export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
summary=build-fuzz/summary.txt
: > "$summary"
failed=0
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/artifacts/$t" "fuzz/regressions/$t"
  echo "== fuzzing $t for ${seconds}s"
  log="build-fuzz/$t.log"
  # -timeout: one input may take at most 10 s (a hang is a finding); -rss_limit_mb: so is
  # using more than 2 GB.
  if "build-fuzz/fuzz/${t}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t/" \
       "build-fuzz/corpus/$t" "fuzz/corpus/$t" "fuzz/regressions/$t" >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (see $log and build-fuzz/artifacts/$t/)"
    failed=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  echo "$t: $result, $runs executions in ${seconds}s, $cov" | tee -a "$summary"
done
exit $failed
