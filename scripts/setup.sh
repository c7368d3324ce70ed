#!/usr/bin/env bash
# Installs the Debian packages tensorweave needs (only the missing ones), then
# configures and builds it in build/ (Release, Ninja, ccache when present).
#   scripts/setup.sh [ninja targets...]     default: everything
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  g++ cmake ninja-build pkg-config ccache
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libleveldb-dev libsnappy-dev  # TensorFlow's checkpoint index is a LevelDB table (its CMake config links snappy)
  python3-dev python3-numpy python3-pytest pybind11-dev python3-venv
  python3-protobuf  # the Python package's message classes (tf.train.Example, tf.Summary, ...) from proto/
  libpng-dev  # image summaries are PNG-encoded
  python3-matplotlib  # `tw board` draws event files
  libre2-dev  # RegexReplace matches with RE2
  zlib1g-dev  # TFRecord files with GZIP or ZLIB compression
  openssl  # the TLS tests make their certificates with it
)

# scripts/fuzz.sh and `scripts/sanitize.sh tsan` need clang and its sanitizer runtimes
# as well (TW_SETUP_FUZZ=1); the normal build does not. TW_SETUP_PACKAGES_ONLY=1 stops after installing.
if [ "${TW_SETUP_FUZZ:-}" = 1 ]; then PACKAGES+=(clang libclang-rt-14-dev); fi
# The test suite (TW_SETUP_TEST=1, set by scripts/test.sh) also loads TensorBoard's dashboard
# on our event files in a headless browser (test_summary_tensorboard.py); the demo does not.
if [ "${TW_SETUP_TEST:-}" = 1 ]; then PACKAGES+=(chromium); fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ((${#missing[@]})); then
  echo "== installing missing packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "${TW_SETUP_PACKAGES_ONLY:-}" = 1 ]; then exit 0; fi

# Two cores: parallel jobs = cores, but no more than memory allows (~1.5 GB per job).
# Cache hits across clones in other folders (CI clones afresh each run).
export CCACHE_BASEDIR="$PWD"
jobs=$(nproc)
echo "== configuring build/ (Release)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
echo "== building ${*:-everything} with $jobs jobs"
cmake --build build -j "$jobs" ${1:+--target "$@"}

# `import tensorweave` for Debian's python3: a .pth file in its site-packages naming
# build/python (where the build assembles the package), written only when it changes.
site_dir=$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])')
pth="$site_dir/tensorweave.pth"
if [ "$(cat "$pth" 2>/dev/null)" != "$PWD/build/python" ]; then
  echo "== making tensorweave importable: $pth -> $PWD/build/python"
  $SUDO mkdir -p "$site_dir"
  echo "$PWD/build/python" | $SUDO tee "$pth" >/dev/null
fi
