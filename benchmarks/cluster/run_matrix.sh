#!/usr/bin/env bash
# Distributed runs across emulated hosts (issue 18 item 2, docs/cluster.md): for each link rate
# and host count, brings up a cluster (scripts/cluster, prefix "mx") and runs
#   flowbench dist-train --model lenet in modes sync, async, backup, allreduce,
#   flowbench-mpi-null-step (scalar and dense models, workers = hosts - 1),
#   flowbench-mpi-bench between two hosts (4 B latency, 8 MiB bandwidth; 2 hosts only),
# each under `timeout`, and writes one CSV row per run (wall time, final loss or the benchmark's
# numbers) to OUT (default build/cluster_matrix.csv) with the raw logs beside it.
# Usage: benchmarks/cluster/run_matrix.sh [BUILD_DIR] [RATES] [HOSTS] [STEPS]
#   e.g. benchmarks/cluster/run_matrix.sh build "1gbit 10gbit" "2 3 4" 20
# Every host shares this machine's CPUs: read the times with docs/cluster.md's caveats.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
RATES=${2:-"1gbit 10gbit"} HOSTS_LIST=${3:-"2 3 4"} STEPS=${4:-20}
OUT=${OUT:-$BUILD/cluster_matrix.csv}
LOGS=${OUT%.csv}_logs
export FB_CLUSTER_PREFIX=mx
CLUSTER=$SRC/scripts/cluster
mkdir -p "$LOGS"
echo "rate,hosts,run,wall_s,result" > "$OUT"
trap '"$CLUSTER" down > /dev/null 2>&1' EXIT

row() { echo "$1,$2,$3,$4,$5" | tee -a "$OUT"; }
timed() {  # timed LOG CMD...: runs CMD (bounded), prints the wall seconds
  local log=$1; shift
  local t0; t0=$(date +%s.%N)
  timeout 300 "$@" > "$log" 2>&1 || echo "exit $?" >> "$log"
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b - a}'
}
for rate in $RATES; do
  for hosts in $HOSTS_LIST; do
    "$CLUSTER" up "$hosts" --bandwidth "$rate" --latency 50us > /dev/null || exit 1
    for mode in sync async backup allreduce; do
      cluster="ps=1,worker=$((hosts - 1))"
      [[ $mode == allreduce ]] && cluster="worker=$hosts"
      [[ $mode == backup ]] && ((hosts < 3)) && continue  # backup needs 2+ workers
      log=$LOGS/$rate-$hosts-$mode.log
      wall=$(timed "$log" "$CLUSTER" mpirun -- "$BUILD/flowbench" dist-train --model lenet \
        --cluster "$cluster" --mode "$mode" --steps "$STEPS" --batch 32 --lr 0.05)
      row "$rate" "$hosts" "lenet-$mode" "$wall" "$(grep -h '^final_loss' "$log" | tr '\n' ' ' || true)$(grep -h '^exit' "$log" || true)"
    done
    log=$LOGS/$rate-$hosts-null-step.log
    wall=$(timed "$log" "$CLUSTER" mpirun -- "$BUILD/flowbench-mpi-null-step" --steps 20 \
      --dense 1048576 --models scalar,dense)
    row "$rate" "$hosts" null-step "$wall" "see $log"
    if ((hosts == 2)); then
      log=$LOGS/$rate-p2p.log
      wall=$(timed "$log" "$CLUSTER" mpirun -- "$BUILD/flowbench-mpi-bench" --min-bytes 4 \
        --max-bytes 4 --iters 2000 --rounds 3)
      timeout 300 "$CLUSTER" mpirun -- "$BUILD/flowbench-mpi-bench" --min-bytes 8388608 \
        --max-bytes 8388608 --iters 16 --rounds 3 >> "$log" 2>&1
      row "$rate" 2 p2p-bench "$wall" "$(awk '$1 == 4 || $1 == 8388608 {printf "%s B: mpi %s MB/s flowbench %s MB/s; ", $1, $3, $5}' "$log")"
    fi
  done
done
"$CLUSTER" down > /dev/null
echo "wrote $OUT"
