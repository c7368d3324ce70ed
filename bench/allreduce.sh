#!/usr/bin/env bash
# All-reduce of float32 tensors (1 KiB, 1 MiB, 64 MiB) over 2 and 4 processes on loopback,
# in one run: tensorweave's ring between server processes (bench/allreduce.cc) and
# torch.distributed.all_reduce with gloo (bench/torch_allreduce.py, current PyTorch from
# build/peer-venv). Prints median latency and bus bandwidth (2(n-1)/n * bytes / time, as
# NCCL's tests) per side and the ratio (above 1: tensorweave is faster).
#   bench/allreduce.sh [iterations per size]
set -euo pipefail
cd "$(dirname "$0")/.."
iters=${1:-20}
sizes=1024,1048576,67108864
source bench/lib.sh
build_targets allreduce
declare -A us
ports() { /usr/bin/python3 -c "import socket
ss = [socket.socket() for _ in range($1)]
for s in ss: s.bind(('localhost', 0))
print(','.join(str(s.getsockname()[1]) for s in ss))"; }
for n in 2 4; do
  p=$(ports "$n")
  out=$(for ((r = n - 1; r >= 0; r--)); do build/bench/allreduce --rank "$r" --ports "$p" --bytes "$sizes" --iters "$iters" & done; wait)
  while read -r line; do
    us[tw,$n,$(result_field "$line" bytes)]=$(result_field "$line" us)
  done < <(echo "$out" | grep RESULT)
  while read -r line; do
    us[gloo,$n,$(result_field "$line" bytes)]=$(result_field "$line" us)
  done < <(peer bench/torch_allreduce.py "$n" "$sizes" "$iters" | grep RESULT)
done
for n in 2 4; do
  for b in ${sizes//,/ }; do
    awk -v t="${us[tw,$n,$b]}" -v g="${us[gloo,$n,$b]}" -v n="$n" -v b="$b" 'BEGIN {
      bw = 2 * (n - 1) / n * b / 1e3;
      printf "%d processes, %9d bytes: tensorweave %9.1f us (%.3f GB/s bus), gloo %9.1f us (%.3f GB/s bus); tensorweave / gloo %.2fx\n",
             n, b, t, bw / t, g, bw / g, g / t }'
  done
done
