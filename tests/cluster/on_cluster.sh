#!/usr/bin/env bash
# CTest driver for the emulated-cluster checks (issue 18, cmake/cluster_tests.cmake): brings up a
# cluster of its own (a prefix unique to this test and process, so parallel tests never share
# namespaces), runs one check on it, and always takes it down again.
# Usage: on_cluster.sh CHECK HOSTS BANDWIDTH BUILD_DIR
#   CHECK: lenet-sync | bandwidth | link-down | sim-null-step
# Exit status: 0 pass, 1 fail, 77 skipped (not root, no namespace support, no iproute2), with
# the reason on stdout.
set -uo pipefail
CHECK=$1 HOSTS=$2 BANDWIDTH=$3 BUILD=$4
SRC=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER=$SRC/scripts/cluster
case $CHECK in lenet-sync) L=l ;; bandwidth) L=b ;; link-down) L=f ;; sim-null-step) L=n ;; *) L=x ;; esac
export FB_CLUSTER_PREFIX=$L$(($$ % 10000000))
if [[ ($CHECK == bandwidth || $CHECK == sim-null-step) && ${FB_CLUSTER_SANITIZED:-0} == 1 ]]; then
  echo "SKIP: $CHECK is not timed with sanitized binaries (FLOWBENCH_SANITIZE)"; exit 77
fi
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: the emulated cluster needs root (uid $(id -u))"; exit 77; fi
WORK=$BUILD/cluster_$CHECK
rm -rf "$WORK" && mkdir -p "$WORK"
for tool in ip tc iptables ethtool mpirun; do
  command -v $tool > /dev/null || { echo "SKIP: '$tool' not found (scripts/install-deps)"; exit 77; }
done
if ! ip netns add "${FB_CLUSTER_PREFIX}probe" 2> "$WORK/netns.err"; then
  echo "SKIP: cannot create network namespaces here: $(cat "$WORK/netns.err")"; exit 77
fi
ip netns del "${FB_CLUSTER_PREFIX}probe"

trap '"$CLUSTER" down > /dev/null 2>&1' EXIT
up_status=0
"$CLUSTER" up "$HOSTS" --bandwidth "$BANDWIDTH" --latency 50us > "$WORK/up.log" 2>&1 || up_status=$?
cat "$WORK/up.log"
if ((up_status == 3)); then echo "SKIP: $(tail -1 "$WORK/up.log")"; exit 77; fi
((up_status == 0)) || { echo "FAIL: scripts/cluster up exited $up_status"; exit 1; }

# Takes the cluster down and brings up a fresh one (for a retry).
fresh_cluster() {
  "$CLUSTER" down > /dev/null 2>&1
  "$CLUSTER" up "$HOSTS" --bandwidth "$BANDWIDTH" --latency 50us > "$WORK/up2.log" 2>&1 ||
    { cat "$WORK/up2.log"; echo "FAIL: scripts/cluster up (retry)"; return 1; }
}

# About 2 s. Once in some 60 launches on this shared 2-core machine Open MPI's mpirun waits
# forever for a daemon that never reports (experiments/cluster/validate.py retries likewise): a
# launch that times out gets one more on a fresh cluster; any other failure fails at once.
run_lenet_sync() {
  timeout 90 "$CLUSTER" mpirun -- "$BUILD/flowbench" dist-train --model lenet \
    --cluster ps=1,worker=$((HOSTS - 1)) --mode sync --steps 6 --batch 16 --lr 0.05 \
    --metrics-json "$WORK/metrics.json" 2>&1 | tee "$WORK/run.log"
  return "${PIPESTATUS[0]}"
}

check_lenet_sync() {
  local rc=0
  run_lenet_sync || rc=$?
  if ((rc == 124)); then
    echo "attempt 1 timed out (an mpirun launch hang, log above)"
    fresh_cluster || return 1
    rc=0
    run_lenet_sync || rc=$?
  fi
  ((rc == 0)) || { echo "FAIL: dist-train across $HOSTS hosts exited $rc"; return 1; }
  grep -q '^final_loss [0-9]' "$WORK/run.log" || { echo "FAIL: no final_loss line"; return 1; }
  # The ranks talked over the emulated links: every switch port carried traffic.
  local i bytes
  for ((i = 0; i < HOSTS; i++)); do
    bytes=$(ip -n "${FB_CLUSTER_PREFIX}sw" -s link show "p$i" | awk 'NR==4{print $1}')
    echo "switch port p$i received $bytes bytes"
    ((bytes > 100000)) || { echo "FAIL: host $i sent only $bytes bytes through its link"; return 1; }
  done
}

# Bytes per second of 8 MiB MPI messages between two hosts against the configured rate (tc's
# units: 1gbit = 1e9 bit/s = 125e6 B/s). The goodput of TCP over 1500-byte frames is at most
# 1448/1514 of the link rate (95.6%): "within 20%" leaves room for that and the shared CPU.
check_bandwidth() {
  timeout 120 "$CLUSTER" mpirun --np 2 -- "$BUILD/flowbench-mpi-bench" --min-bytes 8388608 \
    --max-bytes 8388608 --iters 8 --rounds 3 2>&1 | tee "$WORK/run.log"
  local rc=${PIPESTATUS[0]}
  ((rc == 0)) || { echo "FAIL: flowbench-mpi-bench exited $rc"; return 1; }
  local mbs; mbs=$(awk '$1 == 8388608 {print $3}' "$WORK/run.log")
  [[ -n $mbs ]] || { echo "FAIL: no 8388608-byte row in the benchmark's table"; return 1; }
  local rate_bps; rate_bps=$(awk -v r="$BANDWIDTH" 'BEGIN{ m = (r ~ /gbit$/) ? 1e9 : (r ~ /mbit$/) ? 1e6 : 1e3;
    sub(/[kmg]?bit$/, "", r); printf "%.0f", r * m / 8 }')
  awk -v m="$mbs" -v r="$rate_bps" 'BEGIN{ b = m * 1e6;
    printf "measured %.1f MB/s, configured %.1f MB/s: %.1f%%\n", m, r / 1e6, 100 * b / r;
    exit !(b >= 0.8 * r && b <= 1.2 * r) }' ||
    { echo "FAIL: measured bandwidth not within 20% of $BANDWIDTH"; return 1; }
}

# The fault scenario races a health check (10 s) against TCP's own timeout on a shared 2-core
# machine: one failed attempt (its log is kept above) gets one more on a fresh cluster, as the
# timing checks are retried; two failures fail the test.
# Up to three attempts, each on a fresh cluster: an attempt launches mpirun twice (the job, then
# the relaunch), and both of two attempts met Open MPI's launch hang once in session 24 (attempt
# 1 "no first checkpoint", attempt 2's relaunch hung until the timeout).
check_link_down() {
  local attempt
  for attempt in 1 2 3; do
    "$SRC/tests/cluster/link_down.sh" "$CLUSTER" "$BUILD" "$WORK" "$HOSTS" && return 0
    ((attempt < 3)) || return 1
    echo "attempt $attempt failed (log above); retrying on a fresh cluster"
    rm -rf "$WORK/ckpt"
    fresh_cluster || return 1
  done
}

# The simulator's prediction for a network-bound step against the same step measured across the
# hosts (experiments/cluster/validate.py, docs/cluster.md): the dense null step (1 MiB of
# parameters fetched and 1 MiB of update sent back per step) with a BANDWIDTH link and 1 ms of
# delay per direction, predicted by `flowbench sim` on `sim-platform emulated:HOSTS:BANDWIDTH:1ms`.
# At 100 Mbit/s the step is ~180 ms of link time and well within 15% on a loaded 2-core machine
# (measured -3% to -5%); a wrong goodput, burst or delay in scripts/cluster or the platform shows.
check_sim_null_step() {
  timeout 200 python3 "$SRC/experiments/cluster/validate.py" null-step --hosts "$HOSTS" \
    --models dense --dense 262144 --links "$BANDWIDTH:1ms" --repeats 1 --steps 10 \
    --tolerance 0.15 --fail-on-miss --build-dir "$BUILD" --out "$WORK/validation"
  local rc=$?
  ((rc == 0)) || echo "FAIL: validate.py exited $rc (prediction off by more than 15%, or an error above)"
  return $rc
}

case $CHECK in
  lenet-sync) check_lenet_sync ;;
  sim-null-step) check_sim_null_step ;;
  bandwidth) check_bandwidth ;;
  link-down) check_link_down ;;
  *) echo "FAIL: unknown check '$CHECK' (lenet-sync, bandwidth, link-down, sim-null-step)"; exit 1 ;;
esac
