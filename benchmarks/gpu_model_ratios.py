#!/usr/bin/env python3
"""The model-zoo GPU comparison of scripts/gpu-check --run: flowbench ms/step (the metrics JSON
files of `flowbench benchmark --devices gpu:1 --metrics-json DIR/MODEL.MODE.json`) next to
PyTorch's on the same GPU (the JSON lines benchmarks/models_torch_gpu.py prints), as a table with
the ratio flowbench / PyTorch (below 1.0: flowbench is faster). A run that failed or was skipped
shows its reason instead of a number.

  python3 benchmarks/gpu_model_ratios.py --flowbench DIR --torch models_torch.txt \
      [--runs lenet:64,alexnet:128] [--modes forward,forward-backward]
"""
import argparse
import glob
import json
import os

DEFAULT_RUNS = "lenet:64,alexnet:128,overfeat:128,vgg_a:64,googlenet:128"
# flowbench variants of a model PyTorch builds once: compared with that model's PyTorch row.
TORCH_MODEL = {"lstm_lm_word_unrolled": "lstm_lm_word", "lstm_lm_word_basic": "lstm_lm_word"}


def read_flowbench(directory):
    """(model, mode) -> metrics JSON object, from DIR/*.json."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        try:
            with open(path) as f:
                j = json.load(f)
            runs[(j["model"], j["mode"])] = j
        except (OSError, ValueError, KeyError) as e:
            print(f"gpu_model_ratios: skipping {path}: {e}")
    return runs


def read_torch(path):
    """(model, mode) -> JSON line of models_torch_gpu.py (with median_ms or error)."""
    rows = {}
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    r = json.loads(line)
                    rows[(r["model"], r["mode"])] = r
                except (ValueError, KeyError):
                    pass
    except OSError as e:
        print(f"gpu_model_ratios: no PyTorch numbers ({e})")
    return rows


def table(runs, modes, fb, torch, errors):
    lines = [f"{'model':21} {'batch':>5} {'mode':17} {'flowbench ms':>12} {'PyTorch ms':>11} "
             f"{'ratio':>6}  device"]
    for run in runs:
        model, batch = run.split(":")
        for mode in modes:
            f, t = fb.get((model, mode)), torch.get((TORCH_MODEL.get(model, model), mode))
            f_ms = f["ms_per_step_median"] if f else None
            t_ms = t.get("median_ms") if t else None
            ratio = f"{f_ms / t_ms:6.2f}" if f_ms and t_ms else "     -"
            f_txt = f"{f_ms:12.2f}" if f_ms is not None else f"{'failed':>12}"
            t_txt = f"{t_ms:11.2f}" if t_ms is not None else f"{'-':>11}"
            device = ""
            if f:
                gpus = [d for d in f.get("device_names", []) if "GPU" in d]
                device = gpus[0] if gpus else f.get("devices", "")
            lines.append(f"{model:21} {batch:>5} {mode:17} {f_txt} {t_txt} {ratio}  {device}")
            why = errors.get((model, mode)) or (t.get("error") if t and "error" in t else None)
            if f_ms is None and why:
                lines.append(f"    {why}")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--flowbench", required=True, help="directory of flowbench metrics JSON files")
    p.add_argument("--torch", required=True, help="output of models_torch_gpu.py")
    p.add_argument("--runs", default=DEFAULT_RUNS, help="MODEL:BATCH,...")
    p.add_argument("--modes", default="forward,forward-backward")
    p.add_argument("--errors", help="file of 'MODEL MODE: reason' lines for failed runs")
    args = p.parse_args()
    errors = {}
    if args.errors and os.path.exists(args.errors):
        with open(args.errors) as f:
            for line in f:
                head, _, reason = line.partition(": ")
                parts = head.split()
                if len(parts) == 2:
                    errors[(parts[0], parts[1])] = reason.strip()
    print("flowbench / PyTorch on the same GPU, ms/step median (ratio < 1: flowbench faster)")
    print(table(args.runs.split(","), args.modes.split(","), read_flowbench(args.flowbench),
                read_torch(args.torch), errors))


if __name__ == "__main__":
    main()
