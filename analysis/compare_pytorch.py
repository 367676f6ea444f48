#!/usr/bin/python3
"""Side-by-side speed of flowbench and PyTorch on the same models, in the same run.

Two modes:

  benchmark (default)  Times each model in each mode in both systems, alternating: one
      `flowbench benchmark --metrics-json` run, then one PyTorch run of the same model at the
      same batch size, threads, optimizer, number of warm-up and timed steps and the same mode,
      repeated --rounds times. Modes (as convnet-benchmarks and tf_cnn_benchmarks report them):
        forward           logits only (PyTorch: under torch.no_grad())
        forward-backward  loss and gradients, no update (PyTorch: zero_grad, backward)
        train             a full step: gradients and the optimizer's update
      Both sides feed one batch of random images (the model's input shape, from flowbench's
      metrics JSON) and random labels generated once. Reports, per round, ms/step (median of
      the timed steps) of each system, their ratio flowbench/PyTorch, images/s (words/s for a
      language model) and the peak RSS of each process; then the median ratio per model and
      mode. Each PyTorch run is a child process of this script, so its peak RSS is its own.

  accuracy  Trains the MLP (784-256-10) and LeNet-5 on Fashion-MNIST with the same recipe in
      both systems (batch 64, Adam lr 0.001, per-epoch reshuffling, He-uniform weights before
      ReLUs, Glorot-uniform logits, zero biases) and reports test accuracy and ms/step.

PyTorch runs with its defaults: torch.set_num_threads(--threads) and nothing else. In particular
this script no longer sets OMP_WAIT_POLICY=PASSIVE, which issue 16 reports made PyTorch about
2.5x slower on the development machine (passive OpenMP threads sleep between the many short
parallel regions of a step instead of spinning). Export it to measure that setting.
flowbench runs with --blas-threads (default 1, its own default).

Models: lenet, mlp (as flowbench builds them); alexnet, overfeat, vgg_a, googlenet as
convnet-benchmarks defines them (alexnet is the "one weird trick" variant: 64-192-384-256-256
filters, conv1 11x11/4 without padding on 227x227 inputs; overfeat is the fast model on 231x231;
vgg_a is torchvision's vgg11 without dropout; googlenet is Inception v1 without LRN, batch norm
or auxiliary heads); inception_v3 (torchvision, aux_logits=False, init_weights=False) and
resnet50 (torchvision); lstm_lm_word (embedding 512, LSTM 512 with a 512 projection, full
softmax over the vocabulary flowbench reports). Parameter counts of the convnets are checked
against the pinned counts (a mismatch is an error).

Usage (from the repository root, after scripts/build; python3-torch and python3-torchvision):
  /usr/bin/python3 analysis/compare_pytorch.py [benchmark] --models lenet,mlp --batch-size 64
      [--modes forward,forward-backward,train] [--optimizer sgd] [--threads 2] [--rounds 3]
      [--num-batches 100] [--num-warmup-batches 10] [--flowbench build/flowbench] [--json F]
  /usr/bin/python3 analysis/compare_pytorch.py accuracy [--epochs 3] [--threads 2]
  /usr/bin/python3 analysis/compare_pytorch.py params [--models alexnet,resnet50]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_models  # noqa: E402

MODES = ("forward", "forward-backward", "train")


class CompareError(Exception):
    """A user-facing failure: the message says what went wrong and what to do."""


# --- one PyTorch run (in a child process)


def make_optimizer(name, params, lr, momentum):
    if name == "sgd":
        return torch.optim.SGD(params, lr=lr)
    if name == "momentum":
        return torch.optim.SGD(params, lr=lr, momentum=momentum)
    return torch.optim.Adam(params, lr=lr)


def synthetic_batch(spec, batch_size, seed):
    """Random inputs and labels of the flowbench run's shapes (NCHW images or token ids)."""
    gen = torch.Generator().manual_seed(seed)
    if spec["unit"] == "words":
        shape = (batch_size, spec["num_steps"])
        x = torch.randint(0, spec["num_classes"], shape, generator=gen)
        y = torch.randint(0, spec["num_classes"], shape, generator=gen)
        return x, y
    rows, cols, channels = spec["image_shape"]
    x = torch.rand((batch_size, channels, rows, cols), generator=gen)
    y = torch.randint(0, spec["num_classes"], (batch_size,), generator=gen)
    return x, y


def make_step(model, mode, optimizer, x, y):
    """One step of `mode` as a function returning the loss (None in forward mode)."""
    loss_fn = nn.CrossEntropyLoss()

    def loss_of(logits):
        return loss_fn(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))

    if mode == "forward":
        def step():
            with torch.no_grad():
                model(x)
            return None
    elif mode == "forward-backward":
        def step():
            model.zero_grad(set_to_none=True)
            loss = loss_of(model(x))
            loss.backward()
            return loss
    else:
        def step():
            optimizer.zero_grad(set_to_none=True)
            loss = loss_of(model(x))
            loss.backward()
            optimizer.step()
            return loss
    return step


def pytorch_run(args):
    """The child process: times one model in one mode, prints one JSON line."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    spec = json.loads(args.spec)
    model = pytorch_models.build(args.model, spec)
    model.train()
    opt = make_optimizer(args.optimizer, model.parameters(), args.lr, args.momentum)
    x, y = synthetic_batch(spec, args.batch_size, args.seed)
    step = make_step(model, args.mode, opt, x, y)
    for _ in range(args.num_warmup_batches):
        step()
    step_ms = []
    t0 = time.perf_counter()
    for _ in range(args.num_batches):
        t = time.perf_counter()
        step()
        step_ms.append((time.perf_counter() - t) * 1e3)
    wall = time.perf_counter() - t0
    examples = args.batch_size * (spec["num_steps"] if spec["unit"] == "words" else 1)
    print(json.dumps({
        "ms_per_step_median": statistics.median(step_ms),
        "examples_per_sec_median": 1e3 * examples / statistics.median(step_ms),
        "examples_per_sec_total": examples * args.num_batches / wall,
        "peak_rss_bytes": peak_rss_bytes(),
        "parameter_count": pytorch_models.parameter_count(model),
        "step_ms": step_ms}))


def peak_rss_bytes():
    """This process's peak RSS: VmHWM of /proc/self/status, the peak of this process image only
    (ru_maxrss is carried over fork and exec, so a child would report its parent's peak)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# --- the alternating comparison


def run_flowbench(args, model, mode):
    with tempfile.TemporaryDirectory() as tmp:
        metrics = os.path.join(tmp, "metrics.json")
        cmd = [args.flowbench, "benchmark", "--model", model, "--mode", mode,
               "--batch-size", str(args.batch_size), "--num-batches", str(args.num_batches),
               "--num-warmup-batches", str(args.num_warmup_batches), "--optimizer",
               args.optimizer, "--lr", str(args.lr), "--momentum", str(args.momentum),
               "--threads", str(args.threads), "--blas-threads", str(args.blas_threads),
               "--seed", str(args.seed), "--metrics-json", metrics]
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise CompareError(f"{' '.join(cmd)} failed (exit {done.returncode}):\n"
                               f"{done.stderr.strip()}")
        with open(metrics) as f:
            return json.load(f)


def run_pytorch(args, model, mode, spec):
    cmd = [sys.executable, os.path.abspath(__file__), "pytorch-run", "--model", model,
           "--mode", mode, "--spec", json.dumps(spec)]
    for flag in ("batch_size", "num_batches", "num_warmup_batches", "optimizer", "lr",
                 "momentum", "threads", "seed"):
        cmd += ["--" + flag.replace("_", "-"), str(getattr(args, flag))]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise CompareError(f"PyTorch run of {model} ({mode}) failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def spec_from_flowbench(fb):
    """What PyTorch needs to build the same model: input shape, classes, examples' unit."""
    unit = fb["example_unit"]
    spec = {"image_shape": fb["image_shape"], "num_classes": fb["num_classes"], "unit": unit}
    if unit == "words":
        spec["num_steps"] = fb["examples_per_step"] // fb["batch_size"]
    return spec


def check_parameter_counts(model, fb_count, pt_count):
    """Pinned models: both systems must have the pinned count. Others: both must agree."""
    pinned = pytorch_models.PINNED_PARAMETER_COUNTS.get(model)
    if pinned is not None:
        for system, count in (("PyTorch", pt_count), ("flowbench", fb_count)):
            if count != pinned:
                raise CompareError(f"{model}: {system} has {count:,} parameters, the pinned "
                                   f"count is {pinned:,}: the two models differ")
    elif fb_count != pt_count:
        print(f"warning: {model}: flowbench has {fb_count:,} parameters, PyTorch {pt_count:,}",
              file=sys.stderr)


def known_flowbench_models(binary):
    try:
        done = subprocess.run([binary, "benchmark", "--list-models"], capture_output=True,
                              text=True)
    except OSError as e:
        raise CompareError(f"--flowbench {binary}: {e.strerror} (build it first: scripts/build)")
    if done.returncode != 0:
        raise CompareError(f"{binary} benchmark --list-models failed: {done.stderr.strip()} "
                           "(build flowbench first: scripts/build)")
    return done.stdout.split()


def compare(args):
    models = args.models.split(",")
    modes = args.modes.split(",")
    for mode in modes:
        if mode not in MODES:
            raise CompareError(f"--modes: unknown mode '{mode}' (expected {', '.join(MODES)})")
    fb_models = known_flowbench_models(args.flowbench)
    for model in models:
        if model not in pytorch_models.BUILDERS:
            raise CompareError(f"--models: no PyTorch version of '{model}' (known: "
                               f"{', '.join(sorted(pytorch_models.BUILDERS))})")
        if model not in fb_models:
            raise CompareError(f"--models: flowbench does not know model '{model}' (it has: "
                               f"{', '.join(fb_models)}); build a flowbench that registers it")
    rows = []
    for model in models:
        for mode in modes:
            rounds = []
            for r in range(args.rounds):
                fb = run_flowbench(args, model, mode)
                pt = run_pytorch(args, model, mode, spec_from_flowbench(fb))
                if r == 0:
                    check_parameter_counts(model, fb["parameter_count"], pt["parameter_count"])
                rounds.append({"flowbench": fb, "pytorch": pt,
                               "ratio": fb["ms_per_step_median"] / pt["ms_per_step_median"]})
                print(f"{model} {mode} round {r + 1}: flowbench "
                      f"{fb['ms_per_step_median']:.2f} ms, PyTorch {pt['ms_per_step_median']:.2f}"
                      f" ms", file=sys.stderr)
            rows.append({"model": model, "mode": mode, "rounds": rounds,
                         "ratio_median": statistics.median(x["ratio"] for x in rounds)})
    return rows


def mib(n):
    return n / 2**20


def print_table(args, rows):
    print(f"torch {torch.__version__}, {args.threads} threads (flowbench --blas-threads "
          f"{args.blas_threads}), batch {args.batch_size}, optimizer {args.optimizer} "
          f"(train mode), {args.num_warmup_batches} warm-up + {args.num_batches} timed steps, "
          f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(unset)')}, load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'model':<13} {'mode':<16} {'round':>5} {'fb ms/step':>10} {'pt ms/step':>10} "
          f"{'fb/pt':>6} {'fb ex/s':>9} {'pt ex/s':>9} {'fb RSS MiB':>10} {'pt RSS MiB':>10}")
    for row in rows:
        for i, r in enumerate(row["rounds"]):
            fb, pt = r["flowbench"], r["pytorch"]
            print(f"{row['model']:<13} {row['mode']:<16} {i + 1:>5} "
                  f"{fb['ms_per_step_median']:>10.2f} {pt['ms_per_step_median']:>10.2f} "
                  f"{r['ratio']:>6.2f} {fb['examples_per_sec_median']:>9.1f} "
                  f"{pt['examples_per_sec_median']:>9.1f} {mib(fb['peak_rss_bytes']):>10.1f} "
                  f"{mib(pt['peak_rss_bytes']):>10.1f}")
        unit = row["rounds"][0]["flowbench"]["example_unit"]
        print(f"{row['model']:<13} {row['mode']:<16} median flowbench/PyTorch ms/step ratio "
              f"{row['ratio_median']:.2f} (ex/s = {unit}/s)")


# --- parameter counts only


def params(args):
    ok = True
    for model in args.models.split(","):
        if model not in pytorch_models.BUILDERS:
            raise CompareError(f"--models: no PyTorch version of '{model}'")
        spec = pytorch_models.default_spec(model)
        count = pytorch_models.parameter_count(pytorch_models.build(model, spec))
        pinned = pytorch_models.PINNED_PARAMETER_COUNTS.get(model)
        status = "" if pinned is None else ("ok" if count == pinned else f"MISMATCH: pinned "
                                                                         f"{pinned:,}")
        ok = ok and (pinned is None or count == pinned)
        print(f"{model:<13} {count:>13,} {status}")
    if not ok:
        raise CompareError("PyTorch parameter counts differ from the pinned counts")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command")
    b = sub.add_parser("benchmark", help="alternating speed comparison (default)")
    add_benchmark_flags(b)
    a = sub.add_parser("accuracy", help="Fashion-MNIST accuracy of mlp and lenet")
    a.add_argument("--epochs", type=int, default=3)
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--models", default="mlp,lenet")
    a.add_argument("--flowbench", default="build/flowbench")
    a.add_argument("--json", help="also write the results here")
    pp = sub.add_parser("params", help="print and check PyTorch parameter counts")
    pp.add_argument("--models", default=",".join(pytorch_models.PINNED_PARAMETER_COUNTS))
    w = sub.add_parser("pytorch-run", help=argparse.SUPPRESS)
    add_benchmark_flags(w)
    w.add_argument("--model", required=True)
    w.add_argument("--mode", choices=MODES, required=True)
    w.add_argument("--spec", required=True)
    argv = sys.argv[1:]
    if not argv or argv[0] not in sub.choices and argv[0] not in ("-h", "--help"):
        argv = ["benchmark"] + argv
    args = p.parse_args(argv)
    try:
        if args.command == "pytorch-run":
            pytorch_run(args)
        elif args.command == "accuracy":
            import compare_accuracy
            compare_accuracy.run(args)
        elif args.command == "params":
            params(args)
        else:
            rows = compare(args)
            print_table(args, rows)
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(rows, f, indent=2)
    except CompareError as e:
        print(f"compare_pytorch.py: {e}", file=sys.stderr)
        sys.exit(1)


def positive(text):
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text}")
    return v


def add_benchmark_flags(p):
    p.add_argument("--models", default="lenet,mlp")
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--batch-size", type=positive, default=64)
    p.add_argument("--num-batches", type=positive, default=100)
    p.add_argument("--num-warmup-batches", type=int, default=10)
    p.add_argument("--optimizer", choices=("sgd", "momentum", "adam"), default="sgd")
    p.add_argument("--lr", type=float, default=0.001)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--threads", type=positive, default=2)
    p.add_argument("--blas-threads", type=positive, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rounds", type=positive, default=3)
    p.add_argument("--flowbench", default="build/flowbench")
    p.add_argument("--json", help="also write every round's results here")


if __name__ == "__main__":
    main()
