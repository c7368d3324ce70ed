# Shared by the bench/*.sh drivers (sourced): builds the benchmark targets and finds the
# peers' python.
#   build_targets TARGET...   scripts/setup.sh TARGET... (skipped when TW_BENCH_BUILT=1,
#                             for a build tree made by hand)
#   PEER_PYTHON               build/peer-venv's python, installed on first use
build_targets() {
  if [ "${TW_BENCH_BUILT:-0}" != 1 ]; then scripts/setup.sh "$@" >/dev/null; fi
}
PEER_PYTHON=$(bench/install_peer.sh)
export TF_CPP_MIN_LOG_LEVEL=2  # TensorFlow's start-up chatter

# Runs a peer script with the peers' python, TensorFlow's start-up log lines filtered out
# of stderr (its figures and RESULT line are on stdout).
peer() {
  "$PEER_PYTHON" "$@" 2> >(grep -v --line-buffered -e '^[WI]0000 ' -e '^WARNING: All log messages' >&2)
}

# RESULT field $2 of the line $1.
result_field() { echo "$1" | sed -E "s/.*(^| )$2=([0-9.]+).*/\2/"; }

# Passes stdin through and copies it to stderr (not `tee /dev/stderr`, which reopens the
# file and overwrites it when stderr is redirected to a file).
show() { while IFS= read -r line; do printf '%s\n' "$line" >&2; printf '%s\n' "$line"; done; }
