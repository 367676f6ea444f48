#!/bin/bash
# A/B timing of `flowbench lstm` binaries in alternating rounds (docs/benchmarks.md, "LSTM and
# while loops"): per round and variant, the median ms/step of --steps training steps and the
# process's (user + sys) CPU time over wall time (GNU time, the whole process: corpus reading
# and graph building are under 5% of it at 60 steps).
#   benchmarks/lstm_ab.sh ROUNDS STEPS LABEL=BINARY[:ENV=VALUE] ...
# e.g. benchmarks/lstm_ab.sh 3 60 before=/work/main/build/flowbench after=build/flowbench
set -euo pipefail
rounds=$1 steps=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
  for spec in "$@"; do
    label=${spec%%=*} rest=${spec#*=}
    binary=${rest%%:*} envs=""
    [[ "$rest" == *:* ]] && envs=${rest#*:}
    env $envs /usr/bin/time -f "%U %S %e" -o "$tmp/time" "$binary" lstm --steps "$steps" \
      --eval-seq-len 1 --threads 2 --metrics-json "$tmp/m.json" > /dev/null
    read -r user sys wall < "$tmp/time"
    ms=$(python3 -c "import json; print('%.1f' % json.load(open('$tmp/m.json'))['ms_per_step_median'])")
    util=$(python3 -c "print('%.2f' % (($user + $sys) / $wall))")
    cpu_ms=$(python3 -c "print('%.1f' % (($user + $sys) * 1000 / $steps))")
    echo "round $r $label ms/step $ms (user+sys)/wall $util cpu_ms/step $cpu_ms"
  done
done
