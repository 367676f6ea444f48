#!/usr/bin/env bash
# Network faults that a job must survive (issue 18, docs/cluster.md "Network faults"): a LeNet
# sync job on 4 emulated hosts at 1 Gbit/s, 50 us, run
#   undisturbed,
#   with 1% loss on every link direction from the start,
#   with the latency jumping 100x (50 us -> 5 ms per link direction) a few seconds in,
# plus the 8 MiB bandwidth between two hosts with and without the loss. Sync mode is
# deterministic: the faulty runs must end with the undisturbed run's final loss. Prints one line
# per run (wall seconds, final loss) and exits non-zero when a final loss differs.
# (The link taken down for good is tests/cluster/link_down.sh, run by CTest.)
# Usage: benchmarks/cluster/faults.sh [BUILD_DIR] [STEPS]
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
STEPS=${2:-30}
export FB_CLUSTER_PREFIX=nf
CLUSTER=$SRC/scripts/cluster
LOGS=$BUILD/cluster_faults_logs
mkdir -p "$LOGS"
trap '"$CLUSTER" down > /dev/null 2>&1' EXIT

# train NAME [jump]: the LeNet job; prints "NAME wall_s final_loss exit". jump: the latency goes
# from 50 us to 5 ms per link direction 3 s after the launch. A launch that hangs (mpirun waiting
# for an ORTE daemon that never reports: seen in about 1 of 20-40 launches on this loaded 2-core
# machine, also in this script's latency run) is cut after 240 s and retried once, on the same
# cluster with the latency back at 50 us.
train() {
  local log=$LOGS/$1.log t0 rc attempt jumper=""
  for attempt in 1 2; do
    t0=$(date +%s.%N)
    if [[ ${2:-} == jump ]]; then
      "$CLUSTER" set --latency 50us > /dev/null
      ( sleep 3; "$CLUSTER" set --latency 5ms > /dev/null; echo "latency now 5ms per link direction" >&2 ) &
      jumper=$!
    fi
    timeout 240 "$CLUSTER" mpirun -- "$BUILD/flowbench" dist-train --model lenet \
      --cluster ps=1,worker=3 --mode sync --steps "$STEPS" --batch 32 --lr 0.05 > "$log" 2>&1
    rc=$?
    [[ -n $jumper ]] && wait "$jumper"
    ((rc == 124 && attempt == 1)) || break
    echo "$1: mpirun timed out (launch hang, log: $log.hang); retrying once" >&2
    mv "$log" "$log.hang"
  done
  awk -v n="$1" -v a="$t0" -v b="$(date +%s.%N)" -v l="$(sed -n 's/^final_loss //p' "$log")" \
    -v rc=$rc 'BEGIN{printf "%-18s wall %6.2f s  final_loss %s  exit %d\n", n, b - a, l, rc}'
}
bandwidth() {  # bandwidth NAME: 8 MiB messages between hosts 0 and 1
  timeout 300 "$CLUSTER" mpirun --np 2 -- "$BUILD/flowbench-mpi-bench" --min-bytes 8388608 \
    --max-bytes 8388608 --iters 8 --rounds 3 > "$LOGS/$1.log" 2>&1
  awk -v n="$1" '$1 == 8388608 {printf "%-18s mpi %s MB/s  flowbench %s MB/s\n", n, $3, $5}' \
    "$LOGS/$1.log"
}

"$CLUSTER" up 4 --bandwidth 1gbit --latency 50us > /dev/null || exit 1
base=$(train undisturbed); echo "$base"
bandwidth bandwidth-no-loss
"$CLUSTER" set --loss 1% > /dev/null
lossy=$(train loss-1pct); echo "$lossy"
bandwidth bandwidth-loss-1pct
"$CLUSTER" set --loss 0% > /dev/null
jump=$(train latency-jump-100x jump); echo "$jump"
loss_of() { sed 's/.*final_loss \([^ ]*\).*/\1/' <<< "$1"; }
status=0
for run in "$lossy" "$jump"; do
  [[ $(loss_of "$run") == "$(loss_of "$base")" ]] ||
    { echo "DIFFERENT final loss: $run (undisturbed $(loss_of "$base"))"; status=1; }
done
exit $status
