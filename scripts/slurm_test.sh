#!/usr/bin/env bash
# `tw server --cluster_resolver=slurm` under a real Slurm: a one-node Slurm (Debian's
# slurmctld, slurmd and munge, configured on localhost in a temporary directory, on free
# ports) runs `srun -n 3 tw server --cluster_resolver=slurm --resolver_jobs=ps:1,worker:2`;
# `tw health --wait_seconds` waits for each task the resolver named, and a training client
# (scripts/cluster_managers/train_check.py) trains through them and checks the result.
# Also checks that the C++ host-list expander agrees with `scontrol show hostnames`.
# Every daemon, task and file it made is removed on any exit (also Ctrl-C or SIGTERM).
# Installs slurmctld, slurmd, slurm-client and munge with apt-get if they are missing; where
# it cannot (not root, no packages) or Slurm cannot run here, prints "skipped: ..." and exits 0.
#   scripts/slurm_test.sh [--keep_dir]   keep the work directory (configuration, logs)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cluster_managers/check_and_train.sh
keep_dir=0
case "${1:-}" in
  --keep_dir) keep_dir=1 ;;
  "") ;;
  *) echo "usage: scripts/slurm_test.sh [--keep_dir]" >&2; exit 2 ;;
esac
skip() { echo "skipped: $1"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "not root (slurmd runs tasks as any user only as root)"
need=()
for p in slurmctld slurmd slurm-client munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if ((${#need[@]})); then
  echo "== installing ${need[*]}"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } \
    >/dev/null 2>&1 || skip "Slurm's packages (${need[*]}) are missing and could not be installed"
fi
scripts/setup.sh tw tw_python >/dev/null
tw=$PWD/build/tools/tw
py=/usr/bin/python3  # Debian's, with NumPy (`python3` on PATH may be another)

dir="" srun_pid="" daemons=()  # daemons: "name pid", stopped in reverse order of start
stop_pid() {  # SIGTERM, up to 5 s, then SIGKILL
  kill "$1" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
}
cleanup() {
  trap - EXIT INT TERM
  set +e
  exec 2>/dev/null
  # The job first, while slurmctld, slurmd and munged still run to end it; the tasks also
  # stop by themselves when this script exits (--parent_pid).
  if [ -n "$srun_pid" ]; then
    scancel --quiet --name=tw-slurm-test
    for _ in $(seq 50); do kill -0 "$srun_pid" || break; sleep 0.1; done
    stop_pid "$srun_pid"
  fi
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do stop_pid "${daemons[$i]#* }"; done
  wait
  if [ -n "$dir" ]; then
    if ((keep_dir)); then echo "work directory kept: $dir"; else rm -rf "$dir"; fi
  fi
}
trap cleanup EXIT
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND"' ERR  # set -e stops the script: say where
trap 'echo "interrupted: cleaning up" >&2; exit 130' INT TERM
dir=$(mktemp -d /tmp/tw_slurm.XXXXXX)
mkdir -p "$dir"/{state,spool,munge}
chmod 700 "$dir/munge"
start=$(date +%s%N)

# Ports below the ephemeral range, free now (the servers take base_port .. base_port+2).
free_ports() {
  "$py" - "$1" <<'EOF'
import random, socket, sys
ports = []
while len(ports) < int(sys.argv[1]):
    p = random.randrange(12000, 28000, 4)
    try:
        for q in range(p, p + 4):
            socket.create_server(("127.0.0.1", q)).close()
        ports.append(p)
    except OSError:
        pass
print(*ports)
EOF
}
read -r ctld_port slurmd_port base_port < <(free_ports 3)

# munge: its own key and socket, so nothing of the host's is used or changed.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" ||
  skip "munged does not start here ($(tail -1 "$dir/munge/munged.log" 2>/dev/null))"
daemons+=("munged $(cat "$dir/munge/munged.pid")")

cpus=$(nproc)
cat > "$dir/slurm.conf" <<EOF
ClusterName=twtest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SwitchType=switch/none
# 3 tasks on a machine with fewer cores: the node says it has 4 CPUs.
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$((cpus > 4 ? cpus : 4)) State=UNKNOWN
PartitionName=tw Nodes=localhost Default=YES MaxTime=10 State=UP
EOF
export SLURM_CONF=$dir/slurm.conf

echo "== host lists: the resolver's expander (C++, through Python) against scontrol show hostnames"
for list in 'localhost' 'node[01-03,7],gpu-a[1-2]' 'r[1-2]n[1-2]' 'n[8-10],m[001-3]' 'n[1-02],x' 'n1,n1' 'n[0-999]'; do
  want=$(scontrol show hostnames "$list" | paste -sd, -)
  got=$("$py" -c 'import sys; from tensorweave.distribute.cluster_resolver import expand_hostlist
print(",".join(expand_hostlist(sys.argv[1])))' "$list")
  [ "$got" = "$want" ] || { echo "FAIL: '$list' expands to $got, scontrol says $want"; exit 1; }
done
echo "PASS: 7 host lists expand as scontrol show hostnames does"

echo "== one-node Slurm on localhost (slurmctld :$ctld_port, slurmd :$slurmd_port)"
slurmctld -f "$dir/slurm.conf" -i || skip "slurmctld does not start here ($(tail -2 "$dir/slurmctld.log" 2>/dev/null))"
for _ in $(seq 50); do [ -s "$dir/slurmctld.pid" ] && break; sleep 0.1; done
daemons+=("slurmctld $(cat "$dir/slurmctld.pid")")
slurmd -f "$dir/slurm.conf" -N localhost || skip "slurmd does not start here ($(tail -2 "$dir/slurmd.log" 2>/dev/null))"
for _ in $(seq 50); do [ -s "$dir/slurmd.pid" ] && break; sleep 0.1; done
daemons+=("slurmd $(cat "$dir/slurmd.pid")")
for _ in $(seq 100); do
  sinfo -h -N -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break
  sleep 0.2
done
sinfo -h -N -o %t | grep -qE '^(idle|mix|alloc)' ||
  { echo "FAIL: the node did not become idle: $(sinfo -N 2>&1 | tail -1)"; tail -5 "$dir/slurmctld.log" "$dir/slurmd.log"; exit 1; }

echo "== srun -n 3 tw server --cluster_resolver=slurm --resolver_jobs=ps:1,worker:2 --base_port=$base_port"
: > "$dir/servers.log"  # the loop below reads it before the tasks write
srun --job-name=tw-slurm-test -n 3 --overcommit --kill-on-bad-exit=1 --label --chdir="$dir" \
  "$tw" server --cluster_resolver=slurm --resolver_jobs=ps:1,worker:2 --base_port="$base_port" --parent_pid=$$ \
  > "$dir/servers.log" 2>&1 &
srun_pid=$!
spec=""
for _ in $(seq 150); do
  spec=$(sed -n 's/^0: tw server: .* of cluster \([^ ]*\) listening at.*/\1/p' "$dir/servers.log" | head -1)
  [ -n "$spec" ] && break
  kill -0 "$srun_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$spec" ] || { echo "FAIL: the tasks did not start"; cat "$dir/servers.log"; tail -5 "$dir/slurmd.log"; exit 1; }
want="ps|localhost:$base_port,worker|localhost:$((base_port + 1));localhost:$((base_port + 2))"
if [ "$spec" != "$want" ]; then
  echo "FAIL: the resolver gave the cluster $spec, expected $want"; cat "$dir/servers.log"; exit 1
fi
echo "PASS: task 0 resolved the cluster $spec"
for t in 0 1 2; do
  grep -q "^$t: tw server: /job:$([ $t = 0 ] && echo ps/replica:0/task:0 || echo worker/replica:0/task:$((t - 1))) of cluster $spec" \
    "$dir/servers.log" || { echo "FAIL: task $t is not the expected job and index"; cat "$dir/servers.log"; exit 1; }
done
echo "PASS: SLURM_PROCID 0, 1, 2 are /job:ps/task:0, /job:worker/task:0, /job:worker/task:1"
check_and_train "$tw" "localhost" "$base_port" slurm_test "$dir/servers.log" "$start"
