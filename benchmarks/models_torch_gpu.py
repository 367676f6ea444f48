#!/usr/bin/env python3
"""PyTorch reference on the GPU for the model zoo: ms/step of forward, forward+backward (as
convnet-benchmarks times them) and train (SGD step) at the OSDI 2016 Table 1 batch sizes, with
PyTorch's defaults (cuDNN autotuning off, fp32, TF32 as PyTorch sets it). Run by
scripts/gpu-check --run; prints one JSON line per (model, mode) and a table.

  python3 benchmarks/models_torch_gpu.py [--models alexnet,vgg_a] [--steps 10] [--warmup 3]
"""
import argparse
import json
import os
import sys
import time

try:
    import torch
except ImportError:
    print("models_torch_gpu: PyTorch not available: SKIPPED")
    sys.exit(0)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
import pytorch_models  # noqa: E402
from compare_pytorch import make_step, synthetic_batch  # noqa: E402

# Table 1 (convnet-benchmarks) batch sizes; the others as docs/benchmarks.md runs them.
BATCH_SIZES = {"lenet": 64, "alexnet": 128, "overfeat": 128, "vgg_a": 64, "googlenet": 128,
               "resnet50": 64, "inception_v3": 32, "lstm_lm_word": 64}
MODES = ("forward", "forward-backward", "train")


def time_model(name, batch, mode, steps, warmup):
    torch.manual_seed(0)
    spec = pytorch_models.default_spec(name)
    model = pytorch_models.build(name, spec).cuda().train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = synthetic_batch(spec, batch, 0)
    step = make_step(model, mode, opt, x.cuda(), y.cuda())
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    times.sort()
    return {"model": name, "batch_size": batch, "mode": mode, "steps": steps,
            "median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3,
            "peak_gpu_mib": torch.cuda.max_memory_allocated() / 2**20}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=",".join(BATCH_SIZES))
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--cudnn-tf32", choices=("default", "off"), default="default",
                   help="off: torch.backends.cudnn.allow_tf32 = False (full FP32 convolutions)")
    args = p.parse_args()
    if args.cudnn_tf32 == "off":
        torch.backends.cudnn.allow_tf32 = False
    if not torch.cuda.is_available():
        print("models_torch_gpu: no GPU: SKIPPED")
        return
    print(f"models_torch_gpu: torch {torch.__version__}, {torch.cuda.get_device_name(0)}, "
          f"cuDNN {torch.backends.cudnn.version()}, CUDA {torch.version.cuda}, "
          f"cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}, "
          f"matmul.allow_tf32={torch.backends.cuda.matmul.allow_tf32}")
    rows = []
    for name in args.models.split(","):
        for mode in MODES:
            try:
                r = time_model(name, BATCH_SIZES[name], mode, args.steps, args.warmup)
            except Exception as e:  # one model failing must not hide the others
                r = {"model": name, "mode": mode, "error": str(e)[:200]}
            print(json.dumps(r), flush=True)
            rows.append(r)
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
    print(f"{'model':14} {'batch':>5} {'mode':17} {'median ms':>10} {'min ms':>9}")
    for r in rows:
        if "error" not in r:
            print(f"{r['model']:14} {r['batch_size']:5} {r['mode']:17} "
                  f"{r['median_ms']:10.2f} {r['min_ms']:9.2f}")


if __name__ == "__main__":
    main()
