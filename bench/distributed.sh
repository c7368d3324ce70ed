#!/usr/bin/env bash
# The 2-task step and the 64 MiB transfer against TensorFlow's own gRPC servers, in one
# run: tensorweave with its two tasks as servers in the benchmark's process and as two
# `tw server` processes, TensorFlow as two tf.distribute.Server processes (the same
# layout as the latter; bench/tf_distributed.py); prints the ratios.
#   bench/distributed.sh [steps] [repeats]   (2-task step runs; 64 MiB transfers)
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-2000}
repeats=${2:-15}
source bench/lib.sh
build_targets tw distributed_step distributed_transfer

servers=()
stop_servers() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${servers[@]}"; do wait "$pid" 2>/dev/null || true; done
  servers=()
}
trap stop_servers EXIT
read -r p0 p1 < <(/usr/bin/python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
spec="local|localhost:$p0;localhost:$p1"
for task in 0 1; do
  build/tools/tw server --cluster_spec="$spec" --job_name=local --task_index=$task >/dev/null 2>&1 &
  servers+=($!)
done
for port in "$p0" "$p1"; do  # Wait until both listen.
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
done

echo "== 2-task step"
tw_in=$(build/bench/distributed_step --steps "$steps" | show | grep RESULT)
tw_proc=$(build/bench/distributed_step --steps "$steps" --cluster_spec "$spec" | show | grep RESULT)
tf_step=$(peer bench/tf_distributed.py step "$steps" | show | grep RESULT)
echo "== 64 MiB transfer"
tw_in_x=$(build/bench/distributed_transfer --repeats "$repeats" | show | grep RESULT)
tw_proc_x=$(build/bench/distributed_transfer --repeats "$repeats" --cluster_spec "$spec" | show | grep RESULT)
stop_servers
tf_x=$(peer bench/tf_distributed.py transfer "$repeats" | show | grep RESULT)

awk -v a="$(result_field "$tw_in" step_us)" -v b="$(result_field "$tw_proc" step_us)" \
    -v f="$(result_field "$tf_step" step_us)" -v r="$(result_field "$tw_proc" rtt_us)" 'BEGIN {
  printf "2-task step, us: tensorweave %.1f (in-process servers), %.1f (2 server processes; raw gRPC round trip %.1f); TensorFlow %.1f (2 server processes); TensorFlow / tensorweave (processes) %.2fx (above 1: tensorweave is faster)\n",
         a, b, r, f, f / b }'
awk -v a="$(result_field "$tw_in_x" gb_per_s)" -v b="$(result_field "$tw_proc_x" gb_per_s)" \
    -v f="$(result_field "$tf_x" gb_per_s)" -v t="$(result_field "$tw_proc_x" tcp_gb_per_s)" 'BEGIN {
  printf "64 MiB transfer, GB/s: tensorweave %.2f (in-process servers), %.2f (2 server processes; plain TCP %.2f); TensorFlow %.2f (2 server processes); tensorweave (processes) / TensorFlow %.2fx (above 1: tensorweave is faster)\n",
         a, b, t, f, b / f }'
