#!/usr/bin/env bash
# Soak: 8 client threads from 2 client processes (build/bench/soak, 4 threads each) run a
# small training step (variables on the ps, cross-task edges both ways) against one
# 1 ps + 2 worker cluster of `tw server` processes. A warm-up round first (WARMUP steps a
# thread, then those client processes exit), then the soak round (STEPS a thread).
# Reports p50/p99 step latency of the soak round, every failed step (there must be none),
# and each server's VmRSS after the warm-up, its peak while soaking (sampled each second)
# and at the end; "flat" means the end is within TOLERANCE_PCT % of the warm-up figure.
#   bench/soak.sh [STEPS per thread, default 10000] [WARMUP per thread, default 2000]
#   SOAK_SECURE=1 bench/soak.sh ...   the same with mutual TLS and a cluster token
# Exits non-zero on a failed step or a server whose memory is not flat.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-10000}
warmup=${2:-2000}
tolerance_pct=${TOLERANCE_PCT:-10}
# Not bench/lib.sh: the soak needs no peers (lib.sh installs them).
if [ "${TW_BENCH_BUILT:-0}" != 1 ]; then scripts/setup.sh tw soak >/dev/null; fi

dir=$(mktemp -d /tmp/tw_soak.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

security_flags=()
if [ "${SOAK_SECURE:-0}" = 1 ]; then
  ( cd "$dir"
    key="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
    openssl req -x509 $key -keyout ca.key -out ca.pem -days 1 -subj /CN=tw-soak-ca 2>/dev/null
    for leaf in server client; do
      printf 'basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n' > $leaf.ext
      openssl req $key -keyout $leaf.key -out $leaf.csr -subj /CN=$leaf 2>/dev/null
      openssl x509 -req -in $leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -out $leaf.pem \
        -extfile $leaf.ext 2>/dev/null
    done
    openssl rand -hex 32 > token )
  security_flags=(--tls_cert="$dir/server.pem" --tls_key="$dir/server.key" --tls_ca="$dir/ca.pem"
                  --cluster_token_file="$dir/token")
  export TW_TLS_CA="$dir/ca.pem" TW_TLS_CERT="$dir/client.pem" TW_TLS_KEY="$dir/client.key"
  export TW_CLUSTER_TOKEN_FILE="$dir/token"
fi

read -r p0 p1 p2 < <(/usr/bin/python3 -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
spec="ps|localhost:$p0,worker|localhost:$p1;localhost:$p2"
names=(ps:0 worker:0 worker:1)
jobs=(ps worker worker)
tasks=(0 0 1)
for i in 0 1 2; do
  build/tools/tw server --cluster_spec="$spec" --job_name="${jobs[$i]}" --task_index="${tasks[$i]}" \
    "${security_flags[@]}" >"$dir/server$i.log" 2>&1 &
  pids+=($!)
done
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
threads_of() { awk '/^Threads:/ {print $2}' "/proc/$1/status"; }

build/bench/soak --cluster_spec "$spec" --init
run_clients() {  # $1: steps a thread, $2: warm-up steps a thread, $3: latency file prefix
  local clients=() status=0
  for p in 0 1; do
    build/bench/soak --cluster_spec "$spec" --threads 4 --process "$p" --steps "$1" --warmup "$2" \
      --out "$3.$p" &
    clients+=($!)
  done
  for c in "${clients[@]}"; do wait "$c" || status=1; done
  return $status
}

failed=0
echo "warm-up: 2 processes x 4 threads x $warmup steps"
run_clients 0 "$warmup" "$dir/warmup" || failed=1
declare -a warm peak
declare -a warm_threads
for i in 0 1 2; do
  warm[$i]=$(rss_kib "${pids[$i]}")
  peak[$i]=${warm[$i]}
  warm_threads[$i]=$(threads_of "${pids[$i]}")
done

echo "soak: 2 processes x 4 threads x $steps steps"
start=$(date +%s%N)
run_clients "$steps" 0 "$dir/soak" &
soak_pid=$!
while kill -0 "$soak_pid" 2>/dev/null; do
  for i in 0 1 2; do
    r=$(rss_kib "${pids[$i]}")
    (( r > peak[i] )) && peak[$i]=$r
    echo "$r" >> "$dir/rss.$i"
  done
  sleep 1
done
wait "$soak_pid" || failed=1
secs=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN {printf "%.1f", (b - a) / 1e9}')

cat "$dir"/soak.* | /usr/bin/python3 -c '
import sys
v = sorted(int(l) for l in sys.stdin if l.strip())
if not v: sys.exit("no timed steps")
q = lambda p: v[min(len(v) - 1, int(p * len(v)))] / 1000
print(f"steps: {len(v)} timed, in '"$secs"' s ({len(v) / float('"$secs"'):.0f} steps/s over 8 threads)")
print(f"step latency ms: p50 {q(0.50):.3f}  p90 {q(0.90):.3f}  p99 {q(0.99):.3f}  max {v[-1] / 1000:.3f}")'

echo "RSS samples (KiB, one a second, at 0/25/50/75/100% of the soak):"
for i in 0 1 2; do
  printf '  %-10s' "${names[$i]}"
  awk '{v[NR] = $1} END {for (k = 0; k <= 4; ++k) printf " %d", v[1 + int((NR - 1) * k / 4)]; print ""}' "$dir/rss.$i"
done
flat=0
printf '%-10s %14s %14s %14s %8s %9s\n' server "after warm-up" "peak (soak)" "end" growth threads
for i in 0 1 2; do
  end=$(rss_kib "${pids[$i]}")
  growth=$(awk -v a="${warm[$i]}" -v b="$end" 'BEGIN {printf "%+.1f%%", (b - a) * 100 / a}')
  printf '%-10s %11d KiB %11d KiB %11d KiB %8s %4d->%-4d\n' "${names[$i]}" "${warm[$i]}" "${peak[$i]}" "$end" \
    "$growth" "${warm_threads[$i]}" "$(threads_of "${pids[$i]}")"
  awk -v a="${warm[$i]}" -v b="$end" -v t="$tolerance_pct" 'BEGIN {exit !(b <= a * (1 + t / 100))}' || flat=1
done
[ "$failed" = 0 ] && echo "failed steps: none" || echo "FAILED STEPS (see above)"
[ "$flat" = 0 ] && echo "memory: flat (every server's end RSS within ${tolerance_pct}% of its post-warm-up RSS)" \
                || echo "MEMORY NOT FLAT (over ${tolerance_pct}%)"
[ "$failed" = 0 ] && [ "$flat" = 0 ]
