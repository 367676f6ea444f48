#!/usr/bin/env bash
# A host's link taken down for good in the middle of a job (issue 18, docs/cluster.md "Network
# faults"): a 3-rank sync job on hosts 0-2 of a 4-host cluster loses host 2's cable at the switch
# after its first checkpoint. The master's health checks must end the job with a message naming
# the task, and `flowbench supervise` must relaunch it with --resume on the hosts whose links are
# up (0, 1, 3: `scripts/cluster mpirun` picks them) and finish from the last checkpoint.
# Usage: link_down.sh CLUSTER_SCRIPT BUILD_DIR WORK_DIR HOSTS   (the cluster is up; prefix in env)
set -uo pipefail
CLUSTER=$1 BUILD=$2 WORK=$3 HOSTS=$4
((HOSTS >= 4)) || { echo "FAIL: link_down.sh needs 4 hosts (3 ranks and a spare), got $HOSTS"; exit 1; }
LOG=$WORK/supervise.log
timeout 240 "$BUILD/flowbench" supervise --max-restarts 1 -- "$CLUSTER" mpirun --np 3 -- \
  "$BUILD/flowbench" dist-train --cluster ps=1,worker=2 --mode sync --steps 600 \
  --checkpoint-every 100 --checkpoint-dir "$WORK/ckpt" --max-final-loss 0.001 > "$LOG" 2>&1 &
job=$!
# Cut host 2 once the first checkpoint is written (bounded: 120 s).
for ((t = 0; t < 600; t++)); do
  grep -q '^checkpoint step 99$' "$LOG" && break
  kill -0 $job 2> /dev/null || break
  sleep 0.2
done
grep -q '^checkpoint step 99$' "$LOG" || { cat "$LOG"; echo "FAIL: no first checkpoint"; exit 1; }
"$CLUSTER" link-down 2
wait $job
rc=$?
cat "$LOG"
((rc == 0)) || { echo "FAIL: supervise exited $rc"; exit 1; }
grep -q 'task /job:worker/replica:0/task:1 (rank 2) did not answer a health check' "$LOG" ||
  { echo "FAIL: no health-check failure naming the task"; exit 1; }
grep -q 'mpirun on [a-z0-9]*h0 [a-z0-9]*h1 [a-z0-9]*h3$' "$LOG" ||
  { echo "FAIL: the relaunch did not run on the hosts with a working link"; exit 1; }
grep -Eq 'resumed from checkpoint step [1-9][0-9]*' "$LOG" ||
  { echo "FAIL: the relaunch did not resume from a checkpoint"; exit 1; }
grep -q 'finished after 1 restart' "$LOG" || { echo "FAIL: expected exactly one restart"; exit 1; }
echo "PASS: link down detected, job resumed on fresh hosts"
