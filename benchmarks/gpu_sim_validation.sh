#!/usr/bin/env bash
# GPU simulator validation (issue 21, item 5; docs/simulator.md, "GPU profiles"): profiles LeNet
# and AlexNet's forward-backward step on the GPU at two batch sizes (`flowbench profile --devices
# gpu:1`), measures held-out batch sizes with `flowbench benchmark --devices gpu:1`, predicts them
# with `flowbench sim --cost-model profile:...` on a one-GPU platform (sim/platforms/h200.xml with
# the profiled GPU's device_model) and prints a table: model, batch, measured and predicted
# ms/step, error, hit or miss against the profile cost model's per-case bound (25%; median 10%).
#
#   benchmarks/gpu_sim_validation.sh          on the device machine, through scripts/gpu-check
#                                             --run-sim (or --run with GPU_CHECK_SIM=1), which
#                                             sets FLOWBENCH and LD_LIBRARY_PATH
# Without a GPU it says so and exits 77 (nothing measured). Outputs in $OUT (default
# ./gpu-sim-out): gpu_sim_profile.h5 (the profile, for sim/profiles/h200/), the table on stdout,
# each command's output in $GPU_SIM_LOG (default $OUT/gpu_sim_validation.txt).
# Environment: FLOWBENCH (default .device/bin/flowbench if present, else build/flowbench),
# GPU_SIM_MODELS (lenet,alexnet), GPU_SIM_PROFILE_BATCHES (32,128), GPU_SIM_HELDOUT (64,256),
# GPU_SIM_BUDGET_S (75: later runs are skipped, and reported, once spent), GPU_SIM_THREADS (2,
# flowbench benchmark's default), GPU_SIM_DEVICES (gpu:1; cpu:1 runs the same pipeline on the
# CPU against sim/platforms/this_machine.xml, to test this script without a GPU).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-sim-out}
mkdir -p "$out"
fb=${FLOWBENCH:-}
if [[ -z "$fb" ]]; then
  if [[ -x .device/bin/flowbench ]]; then fb=.device/bin/flowbench; else fb=build/flowbench; fi
fi
models=${GPU_SIM_MODELS:-lenet,alexnet}
profiled=${GPU_SIM_PROFILE_BATCHES:-32,128}
heldout=${GPU_SIM_HELDOUT:-64,256}
budget=${GPU_SIM_BUDGET_S:-75}
threads=${GPU_SIM_THREADS:-2}
devices=${GPU_SIM_DEVICES:-gpu:1}
log=${GPU_SIM_LOG:-$out/gpu_sim_validation.txt}
profile=$out/gpu_sim_profile.h5
export FLOWBENCH_GPU_ALLOW_TF32=0  # FP32, as the model-zoo table's first pass (gpu-check)
work=$(mktemp -d /tmp/gpu-sim-validation.XXXXXX)
trap 'rm -rf "$work"' EXIT
start=$SECONDS
left() { echo $((budget - (SECONDS - start))); }
limit() { local t; t=$(left); echo $(( t < 5 ? 5 : t )); }  # a command's timeout: what is left

[[ -x "$fb" ]] || { echo "gpu_sim_validation: no flowbench binary at '$fb' (set FLOWBENCH)" >&2; exit 2; }
echo "=== gpu_sim_validation $(date -u +%FT%TZ): $fb, devices $devices" >> "$log"

# 1. The profile (forward-backward, the mode the model-zoo table compares with PyTorch).
cmd=("$fb" profile --out "$profile" --devices "$devices" --mode forward-backward
     --models "$models" --batch-sizes "$profiled" --threads "$threads"
     --warmup-steps 3 --steps 10 --trace-steps 3)
echo "=== ${cmd[*]}" >> "$log"
rc=0
timeout "$(limit)" "${cmd[@]}" > "$work/profile.txt" 2>&1 || rc=$?
cat "$work/profile.txt" >> "$log"
if (( rc != 0 )); then
  if grep -q "no GPU visible" "$work/profile.txt"; then
    echo "gpu_sim_validation: no GPU visible, skipped: $(tail -1 "$work/profile.txt")"
    exit 77
  fi
  echo "gpu_sim_validation: flowbench profile failed (exit code $rc): $(tail -1 "$work/profile.txt")"
  exit 1
fi
# The platform: one device, declaring the device the profile measured (this GPU, whatever it is).
if [[ "$devices" == gpu:* ]]; then
  device=$(sed -n "s/^profile: .* (GPU '\(.*\)', forward-backward;.*/\1/p" "$work/profile.txt")
  model_name=${device%, *MiB}
  sed "s|value=\"NVIDIA H200, sm_90\"|value=\"$model_name\"|" sim/platforms/h200.xml > "$work/gpu.xml"
  platform=$work/gpu.xml
else
  device="this host's CPU"
  platform=sim/platforms/this_machine.xml
fi
echo "profile: $(($SECONDS - start)) s; device: $device" >> "$log"

# 2. Each held-out batch, then each profiled one: measured (flowbench benchmark) and predicted (flowbench sim).
IFS=, read -ra model_list <<< "$models"
IFS=, read -ra batch_list <<< "$heldout"
IFS=, read -ra profiled_list <<< "$profiled"
cases=()  # held-out batches first, then (budget permitting) the profiled ones, as a reference
for model in "${model_list[@]}"; do for batch in "${batch_list[@]}"; do cases+=("$model:$batch"); done; done
for model in "${model_list[@]}"; do for batch in "${profiled_list[@]}"; do cases+=("$model:$batch"); done; done
rows=()
for spec in "${cases[@]}"; do
  model=${spec%%:*} batch=${spec##*:}
  case_id="$model.b$batch"
  if (( $(left) < 5 )); then
    echo "$case_id: skipped, the ${budget} s budget is spent" >> "$log"
    rows+=("$model $batch skipped")
    continue
  fi
  cmd=("$fb" benchmark --model "$model" --batch-size "$batch" --mode forward-backward
       --devices "$devices" --threads "$threads" --num-warmup-batches 3 --num-batches 20
       --metrics-json "$work/$case_id.bench.json")
  echo "=== ${cmd[*]}" >> "$log"
  timeout "$(limit)" "${cmd[@]}" >> "$log" 2>&1 || echo "$case_id: benchmark exit code $?" >> "$log"
  cmd=("$fb" sim --model "$model" --batch "$batch" --platform "$platform"
       --cost-model "profile:$profile" --metrics-json "$work/$case_id.sim.json")
  echo "=== ${cmd[*]}" >> "$log"
  timeout "$(limit)" "${cmd[@]}" > "$work/$case_id.sim.txt" 2>&1 || echo "$case_id: sim exit code $?" >> "$log"
  cat "$work/$case_id.sim.txt" >> "$log"
  rows+=("$model $batch $work/$case_id")
done
echo "measurements and predictions: $(($SECONDS - start)) s" >> "$log"

# 3. The table.
python3 - "$device" "$profiled" "${rows[@]}" <<'PY'
import json, re, statistics, sys

device, profiled, rows = sys.argv[1], sys.argv[2], sys.argv[3:]
TOLERANCE = 25.0  # per case, the profile cost model's max |error| target (docs/simulator.md)
MEDIAN_TARGET = 10.0
print(f"GPU simulator validation: {device}, forward-backward, FP32; profiled batches {profiled}")
print(f"{'model':<9} {'batch':>5} {'measured ms':>12} {'predicted ms':>13} {'error':>8}  "
      f"{'within 25%':<10} note")
profiled_batches = set(profiled.split(","))
errors = []
for row in rows:
    model, batch, base = row.split(" ", 2)
    in_sample = batch in profiled_batches
    if base == "skipped":
        print(f"{model:<9} {batch:>5} {'-':>12} {'-':>13} {'-':>8}  {'-':<10} skipped (budget)")
        continue
    try:
        measured = json.load(open(base + ".bench.json"))["ms_per_step_median"]
    except (OSError, ValueError, KeyError) as e:
        measured = None
    try:
        predicted = json.load(open(base + ".sim.json"))["median_step_time_s"] * 1e3
    except (OSError, ValueError, KeyError):
        predicted = None
    note = "profiled batch (reference); " if in_sample else "held out; "
    try:
        text = open(base + ".sim.txt").read()
        m = re.search(r"extrapolated: (\d+) nodes, unprofiled \(analytic\): (\d+) nodes", text)
        if m:
            note += f"{m.group(1)} nodes extrapolated, {m.group(2)} unprofiled"
        if predicted is None:
            note = text.strip().splitlines()[-1][:100] if text.strip() else "sim failed"
    except OSError:
        pass
    if measured is None or predicted is None:
        what = "benchmark failed" if measured is None else note
        print(f"{model:<9} {batch:>5} {measured or '-':>12} {'-':>13} {'-':>8}  {'miss':<10} {what}")
        if not in_sample:
            errors.append(float("inf"))
        continue
    err = (predicted - measured) / measured * 100
    if not in_sample:
        errors.append(abs(err))
    hit = "hit" if abs(err) <= TOLERANCE else "miss"
    print(f"{model:<9} {batch:>5} {measured:>12.3f} {predicted:>13.3f} {err:>+7.1f}%  {hit:<10} {note}")
if errors:
    med = statistics.median(errors)
    print(f"held-out batches: median |error| {med:.1f}% (target {MEDIAN_TARGET:.0f}%: {'met' if med <= MEDIAN_TARGET else 'missed'}), "
          f"max {max(errors):.1f}% (target {TOLERANCE:.0f}%: {'met' if max(errors) <= TOLERANCE else 'missed'}), "
          f"{sum(e <= TOLERANCE for e in errors)} of {len(errors)} cases within {TOLERANCE:.0f}%")
PY
echo "gpu_sim_validation: $(($SECONDS - start)) s; profile $profile"
