#!/usr/bin/env bash
# Which layer of the emulation costs what at 10 Gbit/s (issue 18, docs/cluster.md "Issue 18's
# remaining cases"): the same measurement on an emulated cluster at 10 Gbit/s, 50 us, then with
# the delayer holding packets for 0 us, then with the delayer's NFQUEUE rules removed, then with
# the htb shaping removed too (a bare veth pair through the bridge). Two runs each; every line carries the load average around its run.
#   bandwidth  8 MiB messages between 2 hosts (flowbench-mpi-bench: plain MPI and flowbench)
#   lenet      LeNet sync on 4 hosts (ps + 3 workers, 30 steps, traced): the median step and a
#              worker's kernel time per step (benchmarks/cluster/trace_step.py)
# Usage: benchmarks/cluster/layers.sh bandwidth|lenet [BUILD_DIR]   (root; ~2-4 minutes)
set -uo pipefail
WHAT=${1:-} SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${2:-$SRC/build}" && pwd)
case $WHAT in bandwidth) HOSTS=2 ;; lenet) HOSTS=4 ;; *) echo "usage: $0 bandwidth|lenet [BUILD_DIR]" >&2; exit 2 ;; esac
export FB_CLUSTER_PREFIX=ly
CLUSTER=$SRC/scripts/cluster
LOGS=$BUILD/cluster_layers_logs
mkdir -p "$LOGS"
trap '"$CLUSTER" down > /dev/null 2>&1' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }

once() {  # once TAG: one run, its result on stdout; exit 124 when mpirun timed out
  if [[ $WHAT == bandwidth ]]; then
    timeout 120 "$CLUSTER" mpirun --np 2 -- "$BUILD/flowbench-mpi-bench" --min-bytes 8388608 \
      --max-bytes 8388608 --iters 8 --rounds 3 > "$LOGS/$1.log" 2>&1 || return
    awk '$1 == 8388608 {printf "MPI %s MB/s, flowbench %s MB/s", $3, $5}' "$LOGS/$1.log"
  else
    timeout 150 "$CLUSTER" mpirun -- "$BUILD/flowbench" dist-train --model lenet \
      --cluster ps=1,worker=3 --mode sync --steps 30 --batch 32 --lr 0.05 \
      --trace "$LOGS/$1.h5" > "$LOGS/$1.log" 2>&1 || return
    /usr/bin/python3 "$SRC/benchmarks/cluster/trace_step.py" "$LOGS/$1.h5"
  fi
}

measure() {  # measure LABEL TAG: two runs; a launch that hangs (mpirun waits for a daemon that
  local r l0 out rc  # never reports, ~1 in 40 launches on this machine) gets one retry
  for r in 1 2; do
    l0=$(load) rc=0
    out=$(once "$2_$r") || rc=$?
    ((rc == 124)) && { rc=0; out=$(once "$2_$r") || rc=$?; }
    ((rc == 0)) || out="failed (exit $rc, $LOGS/$2_$r.log)"
    echo "$1, run $r: ${out:-no result}, load $l0-$(load)"
  done
}

timeout 90 "$CLUSTER" up $HOSTS --bandwidth 10gbit --latency 50us > "$LOGS/up.log" 2>&1 ||
  { cat "$LOGS/up.log"; exit 1; }
measure "10 Gbit/s, 50 us (delayer)" delayer
"$CLUSTER" set --latency 0us > /dev/null
measure "10 Gbit/s, delayer holding 0 us" delayer0
for ((i = 0; i < HOSTS; i++)); do
  "$CLUSTER" exec $i -- iptables -F OUTPUT && "$CLUSTER" exec $i -- iptables -F INPUT
done
measure "10 Gbit/s, no delayer" nodelayer
for ((i = 0; i < HOSTS; i++)); do
  "$CLUSTER" exec $i -- tc qdisc del dev fbnet0 root
  ip netns exec "${FB_CLUSTER_PREFIX}sw" tc qdisc del dev "p$i" root
done
measure "unshaped veth + bridge, no delayer" unshaped
