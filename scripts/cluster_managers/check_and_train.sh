# Sourced by scripts/slurm_test.sh and scripts/mpi_test.sh: the end both share.
# check_and_train TW HOST BASE_PORT WHAT LOG START_NS: `tw health` waits for the three
# tasks (ports BASE_PORT..+2), the training client trains through worker 0 and checks its
# result, then "PASS: <WHAT> in N s" (since START_NS); any failure prints LOG and exits 1.
check_and_train() {
  local tw=$1 host=$2 base_port=$3 what=$4 log=$5 start=$6 port ms
  for port in $base_port $((base_port + 1)) $((base_port + 2)); do
    "$tw" health "$host:$port" --wait_seconds=20 || { echo "FAIL: tw health $host:$port"; cat "$log"; exit 1; }
  done
  echo "== training through the tasks of $what"
  # Debian's python, with NumPy (`python3` on PATH may be another).
  /usr/bin/python3 scripts/cluster_managers/train_check.py "grpc://$host:$((base_port + 1))" ||
    { echo "FAIL: training through the tasks of $what"; cat "$log"; exit 1; }
  ms=$((($(date +%s%N) - start) / 1000000))
  printf 'PASS: %s in %d.%d s\n' "$what" $((ms / 1000)) $((ms % 1000 / 100))
}
