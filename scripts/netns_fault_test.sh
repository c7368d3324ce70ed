#!/usr/bin/env bash
# Faults across real network hosts (RELIABILITY.md, "Faults across network namespaces").
# Three network namespaces (ps, worker0, worker1), each with its own address 10.99.0.1-3/24
# on a veth link to a bridge in a fourth, "switch" namespace, run a `tw server` each (mutual
# TLS + a cluster token: a server refuses a non-loopback address without credentials). A
# training client per worker (build/tests/tw_netns_fault_driver, in that worker's namespace)
# trains ps + 2 workers between-graph under MonitoredTrainingSession. Then:
#   1. worker1's link is cut at the switch: its step fails with UNAVAILABLE or
#      DEADLINE_EXCEEDED within --rpc_timeout_ms (+0.5 s for the master's status probe of
#      the other tasks, +1.5 s of slack), and training resumes once the link is back;
#   2. worker1's server is killed (-9) and restarted on its address: its client rejoins;
#   3. the ps is killed (-9) and restarted: the chief restores the latest checkpoint and
#      every step from there is trained exactly once;
#   4. the final variables equal, bit for bit, those of a fault-free run from a copy of the
#      checkpoint the chief restored (4a), and of a fault-free run from scratch (4b).
# Prints PASS/FAIL per scenario and the measured times; exits non-zero on any failure.
# Every process and namespace it made is removed on any exit (also Ctrl-C or SIGTERM);
# namespaces left by a run that was killed with -9 are removed by the next run.
# Without root or network namespaces it prints "skipped: ..." and exits 0.
#   scripts/netns_fault_test.sh [--last_step N (default 300, at most 10000)] [--rpc_timeout_ms MS (default 2000)]
#                               [--keep_dir]   keep the work directory (logs, checkpoints)
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '/^#   scripts\/netns_fault_test.sh/,/--keep_dir/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
last_step=300 rpc_timeout_ms=2000 keep_dir=0
while (($#)); do
  case "$1" in
    --last_step|--rpc_timeout_ms)
      [ $# -ge 2 ] || { echo "error: $1 needs a value" >&2; usage; }
      [[ "$2" =~ ^[1-9][0-9]{0,6}$ ]] || { echo "error: $1 must be a positive integer, not '$2'" >&2; usage; }
      declare "${1#--}=$2"; shift 2 ;;
    --keep_dir) keep_dir=1; shift ;;
    -h|--help) usage ;;
    *) echo "error: unknown argument '$1'" >&2; usage ;;
  esac
done
((last_step >= 200 && last_step <= 10000)) ||
  { echo "error: --last_step must be in [200, 10000] (the faults happen on the way; the run must end in 300 s)" >&2; exit 2; }
((rpc_timeout_ms >= 200 && rpc_timeout_ms <= 30000)) ||
  { echo "error: --rpc_timeout_ms must be in [200, 30000]" >&2; exit 2; }

skip() { echo "skipped: network namespaces not allowed here ($1)"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "not root"
if ! command -v ip >/dev/null; then
  echo "== installing iproute2"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2; } >/dev/null 2>&1 ||
    skip "no 'ip' command and iproute2 could not be installed"
fi

prefix="twnf$$"
ns_all=("$prefix-sw" "$prefix-ps" "$prefix-w0" "$prefix-w1")
dir=""
remove_namespaces() {  # $@: namespaces; kills every process in them first
  local ns
  for ns in "$@"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  done
  for ns in "$@"; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do  # a killed process leaves its namespace as it is reaped
      [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break
      sleep 0.1
    done
    ip netns del "$ns" 2>/dev/null || true
  done
}
cleanup() {
  trap - EXIT INT TERM USR1
  set +e  # every step of the cleanup runs, whatever fails
  exec 2>/dev/null  # no "Killed" notices for the processes killed below
  if [ -n "$watchdog" ]; then pkill -P "$watchdog" sleep; kill "$watchdog"; fi 2>/dev/null
  remove_namespaces "${ns_all[@]}"
  wait 2>/dev/null || true
  if [ -n "$dir" ]; then
    if ((keep_dir)); then echo "work directory kept: $dir"; else rm -rf "$dir"; fi
  fi
}
watchdog=""
trap cleanup EXIT
trap 'echo "interrupted: cleaning up" >&2; exit 130' INT TERM
# Nothing hangs: past 300 s the run fails (SIGUSR1 from a sleeping watchdog).
trap 'echo "FAIL: the test ran past 300 s; cleaning up"; exit 1' USR1
( sleep 300 && kill -USR1 $$ ) 2>/dev/null &
watchdog=$!

# Namespaces of earlier runs whose script is gone (killed with -9).
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^twnf[0-9]+-' || true); do
  pid=${ns#twnf}; pid=${pid%%-*}
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "removing $ns, left by an earlier run that did not clean up (killed with -9), and its work directory"
    remove_namespaces "$ns"
    rm -rf /tmp/tw_netns."twnf$pid".*
  fi
done

# What the test needs, tried in the switch namespace: a namespace, a bridge, a veth pair, exec.
sw=${ns_all[0]}
ip netns add "$sw" 2>/dev/null || skip "'ip netns add' failed"
{ ip -n "$sw" link add br0 type bridge && ip -n "$sw" link add probe0 type veth peer name probe1 &&
  ip -n "$sw" link del probe0 && ip netns exec "$sw" true; } 2>/dev/null ||
  skip "a bridge, a veth pair or 'ip netns exec' is not allowed"
scripts/setup.sh tw tw_netns_fault_driver >/dev/null
tw=$PWD/build/tools/tw driver=$PWD/build/tests/tw_netns_fault_driver
dir=$(mktemp -d "/tmp/tw_netns.$prefix.XXXXXX")

# Topology: the bridge br0 in the switch namespace, one veth pair per host (eth0 in the
# host, port-<name> on the bridge). Everything lives in namespaces: deleting them removes it.
ip -n "$sw" link set br0 up
hosts=(ps w0 w1)
declare -A ns_of addr_of
for i in 0 1 2; do
  h=${hosts[$i]} ns=${ns_all[$((i + 1))]}
  ns_of[$h]=$ns addr_of[$h]=10.99.0.$((i + 1))
  ip netns add "$ns"
  ip -n "$sw" link add "port-$h" type veth peer name eth0 netns "$ns"
  ip -n "$sw" link set "port-$h" master br0 up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "${addr_of[$h]}/24" dev eth0
  ip -n "$ns" link set eth0 up
done
port=2222
spec="ps|${addr_of[ps]}:$port,worker|${addr_of[w0]}:$port;${addr_of[w1]}:$port"
echo "== cluster $spec (namespaces ${ns_all[*]})"

# Mutual TLS: a CA, a certificate per host naming its address (also its client
# certificate), and the cluster token.
( cd "$dir"
  key="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
  openssl req -x509 $key -keyout ca.key -out ca.pem -days 1 -subj /CN=tw-netns-ca 2>/dev/null
  for i in 0 1 2; do
    h=${hosts[$i]}
    printf 'basicConstraints=CA:FALSE\nsubjectAltName=IP:%s\n' "${addr_of[$h]}" > $h.ext
    openssl req $key -keyout $h.key -out $h.csr -subj /CN=$h 2>/dev/null
    openssl x509 -req -in $h.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -out $h.pem \
      -extfile $h.ext 2>/dev/null
  done
  openssl rand -hex 32 > token )
export TW_TLS_CA="$dir/ca.pem" TW_CLUSTER_TOKEN_FILE="$dir/token"

declare -A server_pid server_starts
start_server() {  # $1: host; waits until it listens (a log per start: server-<host>-<n>.log)
  local h=$1 job=worker task=0 log
  case $h in ps) job=ps ;; w1) task=1 ;; esac
  server_starts[$h]=$(( ${server_starts[$h]:-0} + 1 ))
  log="$dir/server-$h-${server_starts[$h]}.log"
  ip netns exec "${ns_of[$h]}" "$tw" server --cluster_spec="$spec" --job_name=$job --task_index=$task \
    --rpc_timeout_ms="$rpc_timeout_ms" --tls_cert="$dir/$h.pem" --tls_key="$dir/$h.key" --tls_ca="$dir/ca.pem" \
    --cluster_token_file="$dir/token" --file_access_root="$dir" > "$log" 2>&1 &
  server_pid[$h]=$!
  disown "${server_pid[$h]}"  # no "Killed" job notices: this script kills servers on purpose
  for _ in $(seq 100); do
    grep -qs "listening at" "$log" && return 0
    stopped "${server_pid[$h]}" && { echo "FAIL setup: server $h exited:"; cat "$log"; exit 1; }
    sleep 0.1
  done
  echo "FAIL setup: server $h did not listen within 10 s"; cat "$log"; exit 1
}

declare -A client_pid
start_clients() {  # $1: run name (log prefix), $2: checkpoint dir
  local run=$1 ckpt=$2 t
  for t in 1 0; do  # the non-chief first: it waits for the chief's initialization
    local h=w$t extra=()
    ((t == 0)) && extra=(--snapshot_dir="$dir/snapshots" --dump_file="$dir/$run.dump")
    TW_TLS_CERT="$dir/$h.pem" TW_TLS_KEY="$dir/$h.key" ip netns exec "${ns_of[$h]}" "$driver" \
      --cluster_spec="$spec" --task_index=$t --checkpoint_dir="$ckpt" --last_step="$last_step" \
      --save_checkpoint_steps=10 --recovery_wait_secs=0.2 --recovery_deadline_secs=60 "${extra[@]}" \
      > "$dir/$run-w$t.log" 2>&1 &
    client_pid[$h]=$!
  done
}

# True when process $1 (a child of this script) has ended: gone, or a zombie not yet waited for.
stopped() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
now_ms() { echo $(( ${EPOCHREALTIME/./} / 1000 )); }
secs_since() { awk -v a="$1" -v b="$(now_ms)" 'BEGIN {printf "%.2f", (b - a) / 1000}'; }
# The highest step trained in run $1's logs.
max_trained() { cat "$dir/$1"-w?.log | sed -n 's/.*: trained step \([0-9]*\),.*/\1/p' | sort -n | tail -n 1; }
# wait_for SECONDS COMMAND...: polls COMMAND every 0.1 s; false when it never succeeded.
wait_for() {
  local limit=$(( $1 * 10 )); shift
  for _ in $(seq "$limit"); do "$@" && return 0; sleep 0.1; done
  "$@"
}
failures=0
result() {  # $1: PASS|FAIL, $2: scenario, $3: details
  echo "$1 $2: $3"
  [ "$1" = PASS ] || failures=$((failures + 1))
}
wait_clients() {  # $1: run name, $2: seconds; true when both clients exited 0
  local ok=0 h
  for h in w0 w1; do
    wait_for "$2" stopped "${client_pid[$h]}" || { echo "client $h of $1 did not finish in $2 s"; ok=1; continue; }
    wait "${client_pid[$h]}" || { echo "client $h of $1 failed:"; tail -n 5 "$dir/$1-$h.log"; ok=1; }
  done
  return $ok
}
# Before each fault: training must still be under way.
assert_training() {
  local h
  for h in w0 w1; do
    stopped "${client_pid[$h]}" && { echo "FAIL: the training ended before scenario $1 (raise --last_step)"; exit 1; }
  done
  return 0
}
progressed_past() { local m; m=$(max_trained "$1"); [ -n "$m" ] && ((m > $2)); }
lines_in() { grep -c -E "$2" "$1" || true; }
grew() { (($(lines_in "$1" "$2") > $3)); }

mkdir -p "$dir/ckpt" "$dir/snapshots" "$dir/replay" "$dir/scratch"
total_start=$(now_ms)
for h in ps w0 w1; do start_server $h; done
for h in w0 w1; do  # a TCP connection from each worker's namespace to the ps, across the bridge
  ip netns exec "${ns_of[$h]}" timeout 5 bash -c "exec 3<>/dev/tcp/${addr_of[ps]}/$port" ||
    { echo "FAIL setup: ${addr_of[ps]}:$port not reachable from $h"; exit 1; }
done
start_clients faulted "$dir/ckpt"
wait_for 60 progressed_past faulted 40 || { echo "FAIL setup: no training progress"; tail "$dir"/faulted-w?.log; exit 1; }
echo "== training (last step $last_step), step $(max_trained faulted) reached"

# 1. Cut worker1's link at the switch, as a pulled cable: nothing is sent or refused.
fail_re='run failed|MonitoredTrainingSession: (UNAVAILABLE|DEADLINE_EXCEEDED)'
log1="$dir/faulted-w1.log"
before=$(lines_in "$log1" "$fail_re")
assert_training 1
ip -n "$sw" link set port-w1 down
cut_at=$(now_ms)
if wait_for $((rpc_timeout_ms / 1000 + 15)) grew "$log1" "$fail_re" "$before"; then
  fail_secs=$(secs_since "$cut_at")
  failure=$(grep -E "$fail_re" "$log1" | sed -n "$((before + 1))p")
  sleep 1  # the link stays down a little longer
  at_up=$(max_trained faulted)
  ip -n "$sw" link set port-w1 up
  up_at=$(now_ms)
  if wait_for 60 progressed_past faulted "$((at_up + 1))"; then
    resume_secs=$(secs_since "$up_at")
    # The call to the unreachable task times out; the master reports the failure without
    # waiting for its cleanup call to that task: one deadline, plus the master's status probe
    # of the other tasks (0.5 s at most: it names those that do not answer), plus 1.5 s of
    # slack on a busy machine.
    limit=$(awk -v t="$rpc_timeout_ms" 'BEGIN {print t / 1000 + 0.5 + 1.5}')
    if ! grep -qE 'UNAVAILABLE|DEADLINE_EXCEEDED' <<< "$failure"; then
      result FAIL "1 cut link" "the step failed otherwise: $failure"
    elif awk -v a="$fail_secs" -v b="$limit" 'BEGIN {exit !(a > b)}'; then
      result FAIL "1 cut link" "the step failed only after ${fail_secs} s (limit ${limit} s)"
    else
      result PASS "1 cut link" "step failed ${fail_secs} s after the cut (rpc_timeout ${rpc_timeout_ms} ms): ${failure#*: }; training resumed ${resume_secs} s after the link came back"
    fi
  else
    result FAIL "1 cut link" "training did not resume within 60 s of the link coming back"
  fi
else
  ip -n "$sw" link set port-w1 up
  result FAIL "1 cut link" "no step failed within $((rpc_timeout_ms / 1000 + 15)) s of the cut"
fi

# 2. kill -9 worker1's server, restart it on its address: its client rejoins.
at_kill=$(max_trained faulted)
ready_re='worker 1 .*: session ready at'
before_ready=$(lines_in "$log1" "$ready_re")
before=$(lines_in "$log1" "$fail_re")
assert_training 2
kill -9 "${server_pid[w1]}"
killed_at=$(now_ms)
if wait_for 30 grew "$log1" "$fail_re" "$before"; then
  fail_secs=$(secs_since "$killed_at")
  start_server w1
  restarted_at=$(now_ms)
  if wait_for 60 grew "$log1" "$ready_re" "$before_ready" && wait_for 60 progressed_past faulted "$((at_kill + 2))"; then
    result PASS "2 kill -9 worker1" "its client's step failed ${fail_secs} s after the kill; rejoined and training went on $(secs_since "$restarted_at") s after the restart"
  else
    result FAIL "2 kill -9 worker1" "worker1's client did not rejoin within 60 s of the restart"
  fi
else
  result FAIL "2 kill -9 worker1" "worker1's client saw no failure within 30 s"
  start_server w1
fi

# 3. kill -9 the ps, restart it: the chief restores its latest checkpoint; every step from
# that checkpoint on is trained exactly once (steps trained after the restart, both workers).
log0="$dir/faulted-w0.log"
at_kill=$(max_trained faulted)
before_restore=$(lines_in "$log0" ': restored ')
assert_training 3
kill -9 "${server_pid[ps]}"
sleep 0.5
ps_restart_ms=$(now_ms)
start_server ps
if wait_for 60 grew "$log0" ': restored ' "$before_restore"; then
  restored=$(grep ': restored ' "$log0" | tail -n 1)
  restored_step=$(sed -n 's/.*model\.ckpt-\([0-9]*\),.*/\1/p' <<< "$restored")
  snapshot=$(sed -n 's/.*copied to //p' <<< "$restored")
  echo "   chief: ${restored#*: } ($(secs_since "$ps_restart_ms") s after the ps restart; ${at_kill} the last step seen trained before the kill)"
  if wait_clients faulted 120; then
    expected=$(seq "$restored_step" $((last_step - 1)))
    got=$(cat "$dir"/faulted-w?.log | awk -v t="$ps_restart_ms" \
            '{ms = substr($3, 2, length($3) - 2)} ms > t && /: trained step / {sub(",", "", $6); print $6}' | sort -n)
    if [ "$got" = "$expected" ]; then
      result PASS "3 kill -9 ps" "restored model.ckpt-$restored_step (last step seen trained before the kill: $at_kill); steps $restored_step..$((last_step - 1)) each trained once after it"
    else
      twice=$(uniq -d <<< "$got" | tr '\n' ' ')
      missing=$(comm -23 <(sort <<< "$expected") <(sort -u <<< "$got") | sort -n | tr '\n' ' ' || true)
      result FAIL "3 kill -9 ps" "after the restore of step $restored_step: trained twice: [${twice}], never: [${missing}]"
    fi
  else
    result FAIL "3 kill -9 ps" "the clients did not finish"
  fi
else
  result FAIL "3 kill -9 ps" "the chief restored no checkpoint within 60 s"
  wait_clients faulted 5 || true
fi
grep -h ': done at ' "$dir"/faulted-w?.log | sed 's/^/   /'

# 4. Fault-free runs on a fresh cluster: from the snapshot the chief restored, and from scratch.
# Which variables of two dumps ("name shape: values", hex floats) differ, and by how much.
dump_difference() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys
def load(path):
    out = {}
    for line in open(path):
        head, _, values = line.partition(":")
        name, _, shape = head.partition(" ")
        out[name] = (shape, [float.fromhex(v) if "x" in v else float(v) for v in values.split()])
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
diffs = []
for name in sorted(set(a) | set(b)):
    if name not in a or name not in b or a[name][0] != b[name][0]:
        diffs.append(f"{name} missing or of another shape")
    elif a[name][1] != b[name][1]:
        diffs.append(f"{name} by up to {max(abs(x - y) for x, y in zip(a[name][1], b[name][1])):.3g}")
print(f"{len(diffs)} of {len(set(a) | set(b))} variables: " + ", ".join(diffs))
PY
}
compare_run() {  # $1: run name, $2: checkpoint dir, $3: what
  for h in ps w0 w1; do kill "${server_pid[$h]}" 2>/dev/null || true; done
  for h in ps w0 w1; do
    wait_for 10 stopped "${server_pid[$h]}" || kill -9 "${server_pid[$h]}" 2>/dev/null || true
  done
  for h in ps w0 w1; do start_server $h; done
  local started; started=$(now_ms)
  start_clients "$1" "$2"
  if ! wait_clients "$1" 120; then
    result FAIL "$3" "the fault-free run failed"
  elif [ ! -s "$dir/faulted.dump" ]; then
    result FAIL "$3" "the faulted run wrote no variables"
  elif cmp -s "$dir/faulted.dump" "$dir/$1.dump"; then
    result PASS "$3" "$(wc -l < "$dir/$1.dump") variables (weights, Adam slots, global step $last_step) bit-equal to the faulted run's (max |difference| 0); fault-free run $(secs_since "$started") s"
  else
    result FAIL "$3" "the final variables differ: $(dump_difference "$dir/faulted.dump" "$dir/$1.dump")"
    fi
}
if [ -n "${snapshot:-}" ] && [ -d "$snapshot" ]; then
  cp "$snapshot"/* "$dir/replay/"
  compare_run replay "$dir/replay" "4a from the restored checkpoint"
else
  result FAIL "4a from the restored checkpoint" "no snapshot of the restored checkpoint"
fi
compare_run scratch "$dir/scratch" "4b from scratch"

echo "== total $(secs_since "$total_start") s"
if ((failures)); then
  echo "FAILED: $failures scenario(s); logs in $dir"
  keep_dir=1
  exit 1
fi
echo "ALL PASSED"
