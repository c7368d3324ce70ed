#!/usr/bin/env bash
# Checks the thread-safety annotations (ABSL_GUARDED_BY, ABSL_EXCLUSIVE_LOCKS_REQUIRED...)
# of src/ with clang's -Wthread-safety, as errors. Compile only (-fsyntax-only, no objects,
# no link): a full clang build of the library is too slow for CI's 2 cores, and the
# analysis needs only the front end. Needs clang++ (Debian package clang) and a configured
# build directory for the generated protobuf headers (default build/; BUILD_DIR=... to change).
#   scripts/thread_safety_check.sh            every production .cc under src/
#   scripts/thread_safety_check.sh FILE...    just these files
# TW_JOBS=N runs N compilers at once (default 2). Exit status 1 on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
jobs=${TW_JOBS:-2}
cxx=${CXX_CLANG:-clang++}
command -v "$cxx" >/dev/null || { echo "thread_safety_check: $cxx not found (apt-get install clang, or TW_SETUP_FUZZ=1 scripts/setup.sh)" >&2; exit 2; }
if [ ! -d "$build/proto/tensorweave/proto" ] || [ ! -f "$build/gen/include/tensorweave/gen_ops.h" ]; then
  echo "thread_safety_check: $build has no generated headers; configure and build tw_proto and tw_gen_ops_sources first" >&2
  exit 2
fi
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(find src -name '*.cc' ! -name '*_test.cc' | sort)
fi
flags=(-std=c++20 -pthread -fsyntax-only -DLEVELDB_SHARED_LIBRARY -Iinclude -Isrc "-I$build/proto" "-I$build/gen/include"
       -isystem /usr/include/eigen3 -Wthread-safety -Werror=thread-safety)
echo "thread_safety_check: ${#files[@]} files, $jobs at a time, with $($cxx --version | head -1)"
report=$(mktemp)
trap 'rm -f "$report"' EXIT
printf '%s\n' "${files[@]}" |
  xargs -P "$jobs" -I{} sh -c '"$0" "$@" {} 2>&1 | grep -A3 -E "Wthread-safety|error:"; exit 0' "$cxx" "${flags[@]}" \
  > "$report"
if [ -s "$report" ]; then
  cat "$report"
  echo "thread_safety_check: findings above" >&2
  exit 1
fi
echo "thread_safety_check: clean"
