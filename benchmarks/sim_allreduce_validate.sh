#!/bin/bash
# Usage: benchmarks/sim_allreduce_validate.sh (after building flowbench with MPI); OUT=DIR for the outputs.
# Allreduce validation: real dist-train --mode allreduce (LeNet, 32 per rank) vs the simulator
# from a single-process trace. Per-step time from two run lengths: (wall(S2) - wall(S1)) / (S2 - S1).
set -e
cd "$(dirname "$0")/.."
B=build/flowbench
O=${OUT:-out/sim_allreduce_validation}
mkdir -p $O
uptime
$B train --model lenet --batch 32 --threads 1 --max-steps 60 --trace $O/lenet32.h5 --trace-steps 40 > $O/train.log 2>&1
for np in 2 4; do
  # One host per rank with a whole CPU each (--cores 0), and the ranks sharing this machine's
  # cores (the default, sim/core_sharing.h).
  $B sim-platform mpi-node:worker=$np --cores 0 $O/node$np.xml > /dev/null
  $B sim-platform mpi-node:worker=$np $O/node${np}_shared.xml > /dev/null
  for rep in 1 2 3; do for steps in 50 550; do
    echo "ranks $np rep $rep steps $steps: $(cat /proc/loadavg)"
    mpirun --allow-run-as-root --oversubscribe -np $np $B dist-train --mode allreduce --model lenet \
      --batch 32 --lr 0.05 --steps $steps --metrics-json $O/ar${np}_${steps}_$rep.json > $O/ar${np}_$steps.log 2>&1
  done; done
  $B sim --model lenet --batch 32 --platform $O/node$np.xml --mode allreduce --ranks $np \
    --cost-model measured:$O/lenet32.h5 --steps 10 --metrics-json $O/sim$np.json > $O/sim$np.log 2>&1
  # Ranks sharing the 2 cores: each rank's compute ranks/2 times slower (every step "straggles").
  $B sim --model lenet --batch 32 --platform $O/node$np.xml --mode allreduce --ranks $np \
    --cost-model measured:$O/lenet32.h5 --steps 10 --stragglers 1:$((np > 2 ? np / 2 : 1)) \
    --metrics-json $O/simshared$np.json > /dev/null 2>&1
  $B sim --model lenet --batch 32 --platform $O/node${np}_shared.xml --mode allreduce --ranks $np \
    --cost-model measured:$O/lenet32.h5 --steps 10 --metrics-json $O/simcores$np.json > /dev/null 2>&1
  python3 - $O $np <<'PY'
import json, sys
o, np = sys.argv[1], sys.argv[2]
import statistics
per = []
for rep in (1, 2, 3):
  a = json.load(open(f"{o}/ar{np}_50_{rep}.json"))["wall_s"]; b = json.load(open(f"{o}/ar{np}_550_{rep}.json"))["wall_s"]
  per.append((b - a) / 500)
meas = statistics.median(per)
print(f"ranks {np}: per-step estimates " + " / ".join(f"{x*1e3:.2f}" for x in per) + " ms")
s = json.load(open(f"{o}/sim{np}.json"))
pred = s["median_step_time_s"]
sh = json.load(open(f"{o}/simshared{np}.json"))["median_step_time_s"]
print(f"ranks {np}: stragglers 1:{max(1, int(np) // 2)} stand-in: predicted {sh*1e3:.2f} ms, error {100*(sh/meas-1):+.1f}%")
co = json.load(open(f"{o}/simcores{np}.json"))["median_step_time_s"]
print(f"ranks {np}: ranks sharing the cores (mpi-node, --cores nproc): predicted {co*1e3:.2f} ms, error {100*(co/meas-1):+.1f}%")
print(f"ranks {np}: measured {meas*1e3:.2f} ms/step, predicted {pred*1e3:.2f} ms ({s.get('allreduce_algorithm')}), error {100*(pred/meas-1):+.1f}%")
PY
done
uptime
