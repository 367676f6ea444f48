"""Fashion-MNIST accuracy of the MLP and LeNet-5 in PyTorch and flowbench, trained with the same
recipe (the `accuracy` mode of analysis/compare_pytorch.py; see its docstring).

Batch 64, Adam (lr 0.001, TensorFlow/PyTorch default betas and epsilon), the same number of
epochs and CPU threads, pixels scaled to [0, 1], per-epoch reshuffling with the remainder batch
dropped (937 steps per epoch), He-uniform weights before ReLUs, Glorot-uniform logits weights
and zero biases. Reports test accuracy and the median ms per training step (input batch,
forward, backward and update) of each.
"""
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from torch import nn

import pytorch_models

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


def train_pytorch(name, epochs, seed, train, test):
    torch.manual_seed(seed)
    model = pytorch_models.build(name, pytorch_models.default_spec(name))
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


def train_flowbench(binary, name, epochs, seed, threads):
    with tempfile.TemporaryDirectory() as tmp:
        metrics = os.path.join(tmp, "metrics.json")
        cmd = [binary, "train", "--model", name, "--epochs", str(epochs), "--batch-size",
               str(BATCH), "--optimizer", "adam", "--lr", "0.001", "--threads", str(threads),
               "--blas-threads", "1", "--seed", str(seed), "--metrics-json", metrics]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(metrics) as f:
            return json.load(f)


def run(args):
    torch.set_num_threads(args.threads)
    train, test = load_split("train"), load_split("t10k")
    rows = []
    for name in args.models.split(","):
        if name not in ("mlp", "lenet"):
            print(f"compare_pytorch.py accuracy: only mlp and lenet, got '{name}'", file=sys.stderr)
            sys.exit(1)
        pt = train_pytorch(name, args.epochs, args.seed, train, test)
        fb = train_flowbench(args.flowbench, name, args.epochs, args.seed, args.threads)
        rows.append({"model": name, "pytorch": pt, "flowbench": fb,
                     "ratio_ms": fb["ms_per_step_median"] / pt["ms_per_step_median"]})
    print(f"torch {torch.__version__}, load average {os.getloadavg()[0]:.1f}, {args.threads} "
          f"threads, batch {BATCH}, Adam lr 0.001, {args.epochs} epochs")
    print(f"{'model':<6} {'acc pytorch':>11} {'acc flowbench':>13} {'ms/step pytorch':>15} "
          f"{'ms/step flowbench':>17} {'flowbench/pytorch':>17}")
    for r in rows:
        pt, fb = r["pytorch"], r["flowbench"]
        print(f"{r['model']:<6} {100 * pt['test_accuracy']:>10.2f}% "
              f"{100 * fb['test_accuracy']:>12.2f}% {pt['ms_per_step_median']:>15.3f} "
              f"{fb['ms_per_step_median']:>17.3f} {r['ratio_ms']:>17.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
