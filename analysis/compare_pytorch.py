#!/usr/bin/python3
"""Side-by-side training of the issue-3 models in PyTorch and flowbench, in the same run.

Trains the MLP (784-256-10) and LeNet-5 on Fashion-MNIST with the same recipe in both systems:
batch 64, Adam (lr 0.001, TensorFlow/PyTorch default betas and epsilon), the same number of
epochs, CPU threads, pixel scaling to [0, 1], per-epoch reshuffling with the remainder batch
dropped (937 steps per epoch), He-uniform weights before ReLUs, Glorot-uniform logits weights and
zero biases. Neither system spins idle threads: PyTorch runs with OMP_WAIT_POLICY=PASSIVE (set
here unless already set) and flowbench with --blas-threads 1; on a loaded machine spinning
OpenMP/OpenBLAS threads otherwise cost 5-20x per step (measured while writing this script).
Reports test accuracy, median ms per training step (input batch, forward, backward
and update) and the flowbench/PyTorch ratio: the median of the per-round ratios of the full runs
and of short timing runs alternating between the two systems. Only ratios measured in one run mean anything on a
loaded machine.

Usage (from the repository root, after scripts/build):
  /usr/bin/python3 analysis/compare_pytorch.py [--epochs 3] [--threads 2] [--models mlp,lenet]
      [--flowbench build/flowbench] [--json out/compare.json] [--timing-rounds 3]
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # read when torch starts OpenMP

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn

DATA_DIR = "/usr/share/datasets/fashion-mnist"
BATCH = 64


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    rank = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)


def load_split(prefix):
    x = read_idx(os.path.join(DATA_DIR, f"{prefix}-images-idx3-ubyte.gz")).astype(np.float32) / 255
    y = read_idx(os.path.join(DATA_DIR, f"{prefix}-labels-idx1-ubyte.gz")).astype(np.int64)
    return torch.from_numpy(x).unsqueeze(1), torch.from_numpy(y)  # NCHW


def init_weights(model):
    """He uniform before ReLUs, Glorot uniform for the logits, zero biases (as flowbench)."""
    layers = [m for m in model.modules() if isinstance(m, (nn.Linear, nn.Conv2d))]
    for i, layer in enumerate(layers):
        if i == len(layers) - 1:
            nn.init.xavier_uniform_(layer.weight)
        else:
            nn.init.kaiming_uniform_(layer.weight, nonlinearity="relu")
        nn.init.zeros_(layer.bias)
    return model


def make_model(name):
    if name == "mlp":
        return init_weights(nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(),
                                          nn.Linear(256, 10)))
    return init_weights(nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10)))


def train_pytorch(name, epochs, seed, train, test, max_steps=None):
    torch.manual_seed(seed)
    model = make_model(name)
    opt = torch.optim.Adam(model.parameters(), lr=0.001)
    loss_fn = nn.CrossEntropyLoss()
    x, y = train
    gen = torch.Generator().manual_seed(seed)
    steps_per_epoch = x.shape[0] // BATCH
    step_ms = []
    t0 = time.perf_counter()
    for _ in range(epochs):
        perm = torch.randperm(x.shape[0], generator=gen)
        for s in range(steps_per_epoch):
            if max_steps is not None and len(step_ms) >= max_steps:
                break
            t = time.perf_counter()
            idx = perm[s * BATCH:(s + 1) * BATCH]
            opt.zero_grad()
            loss = loss_fn(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            step_ms.append((time.perf_counter() - t) * 1e3)
    wall = time.perf_counter() - t0
    with torch.no_grad():
        correct = sum(int((model(test[0][i:i + 1000]).argmax(1) == test[1][i:i + 1000]).sum())
                      for i in range(0, test[0].shape[0], 1000))
    return {"test_accuracy": correct / test[0].shape[0],
            "ms_per_step_median": statistics.median(step_ms),
            "steps": len(step_ms), "wall_s": wall}


def train_flowbench(binary, name, epochs, seed, threads, max_steps=None):
    with tempfile.TemporaryDirectory() as tmp:
        metrics = os.path.join(tmp, "metrics.json")
        cmd = [binary, "train", "--model", name, "--epochs", str(epochs), "--batch-size",
               str(BATCH), "--optimizer", "adam", "--lr", "0.001", "--threads", str(threads),
               "--blas-threads", "1", "--seed", str(seed), "--metrics-json", metrics]
        if max_steps is not None:
            cmd += ["--max-steps", str(max_steps)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(metrics) as f:
            return json.load(f)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--models", default="mlp,lenet")
    p.add_argument("--flowbench", default="build/flowbench")
    p.add_argument("--json", help="also write the results here")
    p.add_argument("--timing-rounds", type=int, default=3,
                   help="after the full runs, alternate this many short timing runs per system")
    p.add_argument("--timing-steps", type=int, default=300)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    train, test = load_split("train"), load_split("t10k")
    rows = []
    for name in args.models.split(","):
        pt = train_pytorch(name, args.epochs, args.seed, train, test)
        fb = train_flowbench(args.flowbench, name, args.epochs, args.seed, args.threads)
        # The load of a shared machine drifts over minutes: alternate short timing runs so that
        # both systems see the same conditions, and compare the per-round ratios.
        ratios = [fb["ms_per_step_median"] / pt["ms_per_step_median"]]
        for _ in range(args.timing_rounds):
            t_pt = train_pytorch(name, 1, args.seed, train, test, args.timing_steps)
            t_fb = train_flowbench(args.flowbench, name, 1, args.seed, args.threads,
                                   args.timing_steps)
            ratios.append(t_fb["ms_per_step_median"] / t_pt["ms_per_step_median"])
        rows.append({"model": name, "pytorch": pt, "flowbench": fb, "ratios": ratios,
                     "ratio_ms": statistics.median(ratios)})
        print(f"{name}: done, ratios {['%.2f' % r for r in ratios]}", file=sys.stderr)
    print(f"torch {torch.__version__} (OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}), "
          f"load average {os.getloadavg()[0]:.1f}, {args.threads} threads, batch {BATCH}, Adam lr 0.001, "
          f"{args.epochs} epochs")
    print(f"{'model':<6} {'acc pytorch':>11} {'acc flowbench':>13} {'ms/step pytorch':>15} "
          f"{'ms/step flowbench':>17} {'flowbench/pytorch':>17}  (ms/step of the full runs; ratio: "
          f"median over the full run and {args.timing_rounds} alternating {args.timing_steps}-step "
          f"runs)")
    for r in rows:
        pt, fb = r["pytorch"], r["flowbench"]
        print(f"{r['model']:<6} {100 * pt['test_accuracy']:>10.2f}% "
              f"{100 * fb['test_accuracy']:>12.2f}% {pt['ms_per_step_median']:>15.3f} "
              f"{fb['ms_per_step_median']:>17.3f} {r['ratio_ms']:>17.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
