#!/usr/bin/env bash
# `tw server --cluster_resolver=mpi` under Open MPI: `mpirun -np 3 --oversubscribe` starts
# three tasks that take their rank from Open MPI's environment and exchange their addresses
# with MPI_Allgather (the optional component tw links when libopenmpi-dev is installed);
# `tw health --wait_seconds` waits for each, and the training client
# (scripts/cluster_managers/train_check.py) trains through them and checks the result. The
# tasks serve this host's name with a cluster token (the name need not be loopback).
# Every process and file it made is removed on any exit (also Ctrl-C or SIGTERM).
# Installs openmpi-bin and libopenmpi-dev with apt-get if missing (then rebuilds tw with
# MPI); where it cannot, or mpirun cannot run here, prints "skipped: ..." and exits 0.
#   scripts/mpi_test.sh [--keep_dir]   keep the work directory (logs)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cluster_managers/check_and_train.sh
keep_dir=0
case "${1:-}" in
  --keep_dir) keep_dir=1 ;;
  "") ;;
  *) echo "usage: scripts/mpi_test.sh [--keep_dir]" >&2; exit 2 ;;
esac
skip() { echo "skipped: $1"; exit 0; }
need=()
for p in openmpi-bin libopenmpi-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if ((${#need[@]})); then
  [ "$(id -u)" -eq 0 ] || skip "Open MPI (${need[*]}) is missing and this is not root"
  echo "== installing ${need[*]}"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } \
    >/dev/null 2>&1 || skip "Open MPI's packages (${need[*]}) are missing and could not be installed"
fi
scripts/setup.sh tw tw_python >/dev/null
grep -q "TW_HAVE_MPI:INTERNAL=ON" build/CMakeCache.txt ||
  { echo "FAIL: libopenmpi-dev is installed but build/ has no MPI address exchange (CMake did not find MPI)"; exit 1; }
tw=$PWD/build/tools/tw
py=/usr/bin/python3  # Debian's, with NumPy (`python3` on PATH may be another)

dir="" mpirun_pid=""
cleanup() {
  trap - EXIT INT TERM
  set +e
  exec 2>/dev/null
  # mpirun passes SIGTERM on to the tasks; they also stop when this script exits (--parent_pid).
  if [ -n "$mpirun_pid" ]; then
    kill "$mpirun_pid"
    for _ in $(seq 50); do kill -0 "$mpirun_pid" || break; sleep 0.1; done
    kill -9 "$mpirun_pid"
  fi
  wait
  if [ -n "$dir" ]; then
    if ((keep_dir)); then echo "work directory kept: $dir"; else rm -rf "$dir"; fi
  fi
}
trap cleanup EXIT
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND"' ERR  # set -e stops the script: say where
trap 'echo "interrupted: cleaning up" >&2; exit 130' INT TERM
dir=$(mktemp -d /tmp/tw_mpi.XXXXXX)
start=$(date +%s%N)
openssl rand -hex 32 > "$dir/token"
export TW_CLUSTER_TOKEN_FILE=$dir/token  # the client's and tw health's

base_port=$("$py" - <<'EOF'
import random, socket
while True:
    p = random.randrange(12000, 28000, 4)
    try:
        for q in range(p, p + 3):
            socket.create_server(("", q)).close()
        print(p)
        break
    except OSError:
        pass
EOF
)
host=$(hostname)
echo "== mpirun -np 3 tw server --cluster_resolver=mpi --resolver_jobs=ps:1,worker:2 --base_port=$base_port (host $host)"
# Shared memory between ranks may be refused in containers: TCP on loopback is enough here.
: > "$dir/servers.log"  # the loop below reads it before the tasks write
mpirun -np 3 --oversubscribe --allow-run-as-root --mca btl self,tcp --tag-output --wdir "$dir" \
  "$tw" server --cluster_resolver=mpi --resolver_jobs=ps:1,worker:2 --base_port="$base_port" \
  --cluster_token_file="$dir/token" --parent_pid=$$ > "$dir/servers.log" 2>&1 &
mpirun_pid=$!
spec=""
for _ in $(seq 300); do
  spec=$(sed -n 's/^\[1,0\]<stdout>:tw server: .* of cluster \([^ ]*\) listening at.*/\1/p' "$dir/servers.log" | head -1)
  [ -n "$spec" ] && break
  kill -0 "$mpirun_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$spec" ]; then
  # mpirun itself failing to start ranks (no network, a container's limits) is the machine's
  # limit, not a wrong result; the tasks failing after starting is a failure.
  if ! grep -q "tw server" "$dir/servers.log"; then
    skip "mpirun could not start the tasks here: $(grep -v '^\s*$' "$dir/servers.log" | head -3 | tr '\n' ' ')"
  fi
  echo "FAIL: the tasks did not start"; cat "$dir/servers.log"; exit 1
fi
want="ps|$host:$base_port,worker|$host:$((base_port + 1));$host:$((base_port + 2))"
if [ "$spec" != "$want" ]; then
  echo "FAIL: the resolver gave the cluster $spec, expected $want"; cat "$dir/servers.log"; exit 1
fi
echo "PASS: rank 0 resolved the cluster $spec"
for r in 0 1 2; do
  job=$([ $r = 0 ] && echo ps/replica:0/task:0 || echo worker/replica:0/task:$((r - 1)))
  grep -q "^\[1,$r\]<stdout>:tw server: cluster resolver mpi: OMPI_COMM_WORLD_RANK=$r of 3 on host $host, addresses exchanged with MPI_Allgather" \
    "$dir/servers.log" || { echo "FAIL: rank $r did not exchange its address with MPI_Allgather"; cat "$dir/servers.log"; exit 1; }
  grep -q "^\[1,$r\]<stdout>:tw server: /job:$job of cluster $spec" "$dir/servers.log" ||
    { echo "FAIL: rank $r is not /job:$job"; cat "$dir/servers.log"; exit 1; }
done
echo "PASS: ranks 0, 1, 2 exchanged addresses with MPI_Allgather and are /job:ps/task:0, /job:worker/task:0, /job:worker/task:1"
check_and_train "$tw" "$host" "$base_port" mpi_test "$dir/servers.log" "$start"
