#!/usr/bin/python3
"""Side-by-side training steps of the character LSTM in PyTorch and flowbench, in one run.

The model of `flowbench lstm` (experiments/models/lstm_lm.cc): one LSTM layer, H hidden units,
vocabulary 97 (datasets/text_corpus.h), one-hot input concatenated with h, W [V + H, 4H] with the
gates (i, f, o, g) side by side, forget-gate bias +1, output layer W_out [H, V], summed sparse
softmax cross-entropy divided by T * B, Adam (lr 0.005), batches of B random windows of T + 1
characters of the same corpus. PyTorch runs it two ways: "cell", the same ops per time step in a
Python loop (what flowbench's WhileLoop executes), and "nn.LSTM" (PyTorch's fused LSTM layer
plus a Linear output layer, the idiomatic version). Both use torch's defaults but for
torch.set_num_threads(--threads), the inter-op threads flowbench gets; --omp-passive sets
OMP_WAIT_POLICY=PASSIVE, without which torch's OpenMP threads spin between parallel regions and,
on a machine with other work, wait for each other's time slices (20-50x slower steps measured
while writing this script).

Rounds alternate between the systems so that both see the same machine: each round times
--steps training steps of each (after --warmup steps), reporting the median ms/step, the mean
(wall time / steps; flowbench's includes the warm-up steps) and the process's (user + sys) CPU
time over wall time while training. On a loaded machine the mean is the fairer figure: a
single-threaded step is preempted in whole time slices, so most steps run uninterrupted and a
few take far longer, which the median does not see. With --load N the script starts N
busy-loop processes (one core each) for the whole run and kills them at the end, to see how each
system behaves when it must share the cores. `uptime` is recorded before and after.

Usage (from the repository root, after building build/flowbench):
  /usr/bin/python3 benchmarks/compare_lstm_pytorch.py [--rounds 3] [--steps 40] [--threads 2]
      [--load 0] [--omp-passive] [--flowbench build/flowbench] [--flowbench-args "--blas-threads 1"]
      [--json out/lstm-compare.json]
"""
import argparse
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time

if "--omp-passive" in sys.argv:  # libgomp reads it when torch loads
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

import torch  # noqa: E402
from torch import nn  # noqa: E402

VOCAB = 97
CORPUS = "/usr/share/games/fortunes"


def char_to_id(c):
    if c == 10:
        return 0
    if 32 <= c <= 126:
        return c - 31
    return 96


def read_corpus(directory):
    """Training token ids of every text file of `directory` (as datasets/text_corpus.cc)."""
    ids = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if name.endswith((".dat", ".u8")) or os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        ids.extend(char_to_id(c) for c in data[:int(len(data) * 0.9)])
    if len(ids) < 10000:  # no corpus: random text times the same
        ids = torch.randint(0, VOCAB, (100000,)).tolist()
    return torch.tensor(ids, dtype=torch.long)


class CellLstm(nn.Module):
    """flowbench's graph, op for op: Concat, MatMul, Add, Split, the gates, then the logits."""

    def __init__(self, hidden):
        super().__init__()
        scale = 1.0 / (VOCAB + hidden) ** 0.5
        self.hidden = hidden
        self.w = nn.Parameter(torch.empty(VOCAB + hidden, 4 * hidden).uniform_(-scale, scale))
        self.b = nn.Parameter(torch.zeros(4 * hidden))
        self.w_out = nn.Parameter(torch.empty(hidden, VOCAB).uniform_(-hidden ** -0.5,
                                                                        hidden ** -0.5))
        self.b_out = nn.Parameter(torch.zeros(VOCAB))

    def forward(self, x, y):  # x, y: [T, B] token ids
        T, B = x.shape
        h = torch.zeros(B, self.hidden)
        c = torch.zeros(B, self.hidden)
        total = torch.zeros(())
        eye = torch.eye(VOCAB)
        for t in range(T):
            z = torch.cat([eye[x[t]], h], 1) @ self.w + self.b
            i, f, o, g = z.chunk(4, 1)
            c = torch.sigmoid(f + 1.0) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            logits = h @ self.w_out + self.b_out
            total = total + nn.functional.cross_entropy(logits, y[t], reduction="sum")
        return total / (T * B)


class FusedLstm(nn.Module):
    """The idiomatic PyTorch model: one-hot input, nn.LSTM, nn.Linear."""

    def __init__(self, hidden):
        super().__init__()
        self.lstm = nn.LSTM(VOCAB, hidden)
        self.out = nn.Linear(hidden, VOCAB)

    def forward(self, x, y):
        onehot = nn.functional.one_hot(x, VOCAB).float()
        h, _ = self.lstm(onehot)
        logits = self.out(h)
        return nn.functional.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))


def time_pytorch(model, text, args, steps):
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    gen = torch.Generator().manual_seed(args.seed)
    step_ms = []
    cpu0, wall0 = None, None
    for step in range(args.warmup + steps):
        if step == args.warmup:
            cpu0, wall0 = time.process_time(), time.perf_counter()
        t = time.perf_counter()
        starts = torch.randint(0, len(text) - args.seq_len - 2, (args.batch,), generator=gen)
        idx = starts[None, :] + torch.arange(args.seq_len)[:, None]
        x, y = text[idx], text[idx + 1]
        opt.zero_grad()
        loss = model(x, y)
        loss.backward()
        opt.step()
        if step >= args.warmup:
            step_ms.append((time.perf_counter() - t) * 1e3)
    wall = time.perf_counter() - wall0
    return {"ms_per_step": statistics.median(step_ms), "mean_ms_per_step": 1e3 * wall / steps,
            "cpu_over_wall": (time.process_time() - cpu0) / wall, "loss": float(loss)}


def time_flowbench(args, steps):
    with tempfile.TemporaryDirectory() as tmp:
        metrics = os.path.join(tmp, "metrics.json")
        cmd = [args.flowbench, "lstm", "--steps", str(steps + args.warmup), "--hidden",
               str(args.hidden), "--batch-size", str(args.batch), "--seq-len", str(args.seq_len),
               "--eval-seq-len", "1", "--optimizer", "adam", "--lr", str(args.lr), "--threads",
               str(args.threads), "--seed", str(args.seed), "--metrics-json", metrics]
        cmd += shlex.split(args.flowbench_args)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(metrics) as f:
            m = json.load(f)
    return {"ms_per_step": m["ms_per_step_median"],
            "mean_ms_per_step": 1e3 * m["train_s"] / (steps + args.warmup),
            "cpu_over_wall": m["train_cpu_s"] / m["train_s"], "loss": m["final_loss"]}


def start_load(n):
    code = "while True: pass"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(n)]


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=40, help="timed steps per round and system")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--seq-len", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.005)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--load", type=int, default=0, help="busy-loop processes to run meanwhile")
    p.add_argument("--flowbench", default="build/flowbench")
    p.add_argument("--flowbench-args", default="", help="extra flags for `flowbench lstm`")
    p.add_argument("--systems", default="flowbench,cell,nn.LSTM")
    p.add_argument("--omp-passive", action="store_true",
                   help="PyTorch with OMP_WAIT_POLICY=PASSIVE (OpenMP threads sleep, not spin)")
    p.add_argument("--json", help="also write the results here")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    text = read_corpus(CORPUS)
    systems = args.systems.split(",")
    models = {"cell": CellLstm(args.hidden), "nn.LSTM": FusedLstm(args.hidden)}
    load = start_load(args.load)
    result = {"uptime_before": uptime(), "args": vars(args), "rounds": []}
    try:
        for r in range(args.rounds):
            row = {}
            for name in systems:
                row[name] = (time_flowbench(args, args.steps) if name == "flowbench"
                             else time_pytorch(models[name], text, args, args.steps))
                print(f"round {r} {name:9s} {row[name]['ms_per_step']:8.1f} ms/step (mean "
                      f"{row[name]['mean_ms_per_step']:.1f}) cpu/wall "
                      f"{row[name]['cpu_over_wall']:.2f}", flush=True)
            result["rounds"].append(row)
    finally:
        for proc in load:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    result["uptime_after"] = uptime()
    print(f"H={args.hidden} B={args.batch} T={args.seq_len} threads={args.threads} "
          f"load={args.load}  before: {result['uptime_before']}  after: {result['uptime_after']}")
    summary = {}
    for name in systems:
        ms = statistics.median(row[name]["ms_per_step"] for row in result["rounds"])
        mean = statistics.median(row[name]["mean_ms_per_step"] for row in result["rounds"])
        util = statistics.median(row[name]["cpu_over_wall"] for row in result["rounds"])
        summary[name] = {"ms_per_step": ms, "mean_ms_per_step": mean, "cpu_over_wall": util}
        line = (f"{name:9s} median {ms:8.1f} ms/step (mean {mean:.1f})  (user+sys)/wall "
                f"{util:.2f}")
        if "flowbench" in systems and name != "flowbench":
            ratios = [row["flowbench"]["ms_per_step"] / row[name]["ms_per_step"]
                      for row in result["rounds"]]
            mean_ratios = [row["flowbench"]["mean_ms_per_step"] / row[name]["mean_ms_per_step"]
                           for row in result["rounds"]]
            summary[name]["flowbench_ratio"] = statistics.median(ratios)
            summary[name]["flowbench_mean_ratio"] = statistics.median(mean_ratios)
            line += (f"  flowbench/{name} {statistics.median(ratios):.2f}x (means "
                     f"{statistics.median(mean_ratios):.2f}x)")
        print(line)
    result["summary"] = summary
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
