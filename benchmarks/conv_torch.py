#!/usr/bin/python3
"""Side-by-side CPU convolution speed: flowbench's kernels (build/flowbench-bench, conv_bench.cc
and nn_bandwidth_bench.cc) and PyTorch (torch.nn.functional + autograd, torch.set_num_threads(2),
PyTorch defaults: NCHW, its own choice of algorithm) on the same layers, alternating layer by
layer in one run, because this shared 2-core machine's speed drifts: only ratios measured side
by side mean anything. Prints `uptime` before and after, then one row per layer and pass with
flowbench and PyTorch GFLOP/s (GB/s for pooling, bias and relu) and their ratio (above 1:
flowbench faster), optionally a baseline flowbench-bench's value (--baseline: e.g. a build from
before a change, run right after) and the speedup over it, and the GFLOP/s of OpenBLAS's SGEMM
(2 threads) of the forward pass's im2col shape.

    /usr/bin/python3 benchmarks/conv_torch.py [--bench build/flowbench-bench]
        [--baseline OLD/flowbench-bench] [--only REGEX] [--min-time SECONDS] [--repeat N]

Exits 0 with "SKIPPED" when PyTorch is missing (Debian: python3-torch)."""
import argparse
import json
import re
import subprocess
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("conv_torch: PyTorch not available (apt-get install python3-torch): SKIPPED")
    sys.exit(0)

# name, batch, height, width, in_ch, kernel, out_ch, stride, padding: benchmarks/conv_layers.h.
CONV_LAYERS = [
    ("lenet_conv1", 64, 28, 28, 1, 5, 6, 1, "SAME"),
    ("lenet_conv2", 64, 14, 14, 6, 5, 16, 1, "VALID"),
    ("alexnet_conv1", 32, 227, 227, 3, 11, 64, 4, "VALID"),
    ("alexnet_conv2", 32, 27, 27, 64, 5, 192, 1, "SAME"),
    ("alexnet_conv3", 32, 13, 13, 192, 3, 384, 1, "SAME"),
    ("alexnet_conv4", 32, 13, 13, 384, 3, 256, 1, "SAME"),
    ("vgg_conv1", 8, 224, 224, 3, 3, 64, 1, "SAME"),
    ("vgg_conv2", 8, 112, 112, 64, 3, 128, 1, "SAME"),
    ("vgg_conv3", 8, 56, 56, 128, 3, 256, 1, "SAME"),
    ("vgg_conv4", 8, 56, 56, 256, 3, 256, 1, "SAME"),
    ("googlenet_3a_1x1", 16, 28, 28, 192, 1, 64, 1, "SAME"),
    ("googlenet_4a_1x1", 16, 14, 14, 480, 1, 192, 1, "SAME"),
    ("inception3_35_1x1", 8, 35, 35, 288, 1, 64, 1, "SAME"),
    ("inception3_17_1x1", 8, 17, 17, 768, 1, 192, 1, "SAME"),
    ("resnet_conv1", 8, 224, 224, 3, 7, 64, 2, "SAME"),
    ("resnet_56_1x1_in", 8, 56, 56, 256, 1, 64, 1, "SAME"),
    ("resnet_56_3x3", 8, 56, 56, 64, 3, 64, 1, "SAME"),
    ("resnet_56_1x1_out", 8, 56, 56, 64, 1, 256, 1, "SAME"),
    ("resnet_28_1x1_s2", 8, 56, 56, 256, 1, 512, 2, "SAME"),
]
# name, batch, height, width, depth, window, stride, padding, max: nn_bandwidth_bench.cc.
POOL_LAYERS = [
    ("alexnet_pool1", 32, 55, 55, 64, 3, 2, "VALID", True),
    ("vgg_pool1", 8, 224, 224, 64, 2, 2, "VALID", True),
    ("inception3_35_avg", 8, 35, 35, 288, 3, 1, "SAME", False),
    ("googlenet_avg7", 16, 7, 7, 1024, 7, 1, "VALID", False),
]
CONV_PASSES = ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")


def timed(fn, min_time):
    """Seconds per call of fn, after one warm-up call, over at least min_time seconds."""
    fn()
    iters, start = 0, time.perf_counter()
    while True:
        fn()
        iters += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return elapsed / iters


def out_dim(size, kernel, stride, padding):
    return (size + stride - 1) // stride if padding == "SAME" else (size - kernel) // stride + 1


def torch_conv(layer, min_time):
    """PyTorch GFLOP/s of the forward pass, the input gradient and the filter gradient."""
    name, n, h, w, c, k, o, s, padding = layer
    oh, ow = out_dim(h, k, s, padding), out_dim(w, k, s, padding)
    flops = 2.0 * n * oh * ow * k * k * c * o
    pad = k // 2 if padding == "SAME" else 0
    x = torch.rand(n, c, h, w, requires_grad=True)
    f = torch.rand(o, c, k, k, requires_grad=True)
    y = F.conv2d(x, f, stride=s, padding=pad)
    assert tuple(y.shape) == (n, o, oh, ow), (name, tuple(y.shape))
    g = torch.rand_like(y)
    with torch.no_grad():
        fwd = timed(lambda: F.conv2d(x, f, stride=s, padding=pad), min_time)
    bwd_in = timed(lambda: torch.autograd.grad(y, x, g, retain_graph=True), min_time)
    bwd_f = timed(lambda: torch.autograd.grad(y, f, g, retain_graph=True), min_time)
    return {p: flops / t / 1e9 for p, t in zip(CONV_PASSES, (fwd, bwd_in, bwd_f))}


def torch_pool(layer, min_time):
    """PyTorch GB/s of the pooling and its gradient (bytes as nn_bandwidth_bench.cc counts)."""
    name, n, h, w, d, k, s, padding, is_max = layer
    pad = k // 2 if padding == "SAME" else 0
    x = torch.rand(n, d, h, w, requires_grad=True)
    pool = F.max_pool2d if is_max else (
        lambda t, k, s, p: F.avg_pool2d(t, k, s, p, count_include_pad=False))
    y = pool(x, k, s, pad)
    g = torch.rand_like(y)
    in_b, out_b = 4.0 * x.numel(), 4.0 * y.numel()
    with torch.no_grad():
        fwd = timed(lambda: pool(x, k, s, pad), min_time)
    bwd = timed(lambda: torch.autograd.grad(y, x, g, retain_graph=True), min_time)
    kind = "MaxPool" if is_max else "AvgPool"
    grad_b = 2 * in_b + 2 * out_b if is_max else in_b + out_b
    return {kind: (in_b + out_b) / fwd / 1e9, kind + "Grad": grad_b / bwd / 1e9}


def torch_elementwise(min_time):
    """PyTorch GB/s of bias add, bias gradient, relu and relu gradient on [8, 128, 112, 112]."""
    x = torch.rand(8, 128, 112, 112) - 0.5
    g = torch.rand_like(x)
    b = torch.rand(1, 128, 1, 1)
    size = 4.0 * x.numel()
    return {
        "BiasAdd": 2 * size / timed(lambda: x + b, min_time) / 1e9,
        "BiasAddGrad": size / timed(lambda: g.sum(dim=(0, 2, 3)), min_time) / 1e9,
        "Relu": 2 * size / timed(lambda: torch.relu(x), min_time) / 1e9,
        "ReluGrad": 3 * size / timed(lambda: torch.ops.aten.threshold_backward(g, x, 0),
                                     min_time) / 1e9,
    }


def flowbench(bench, names, min_time):
    """{benchmark name: counter value (GFLOP/s or GB/s)} for the exact benchmark names."""
    pattern = "^(" + "|".join(re.escape(n) for n in names) + ")(/real_time)?$"
    cmd = [bench, "--benchmark_filter=" + pattern, "--benchmark_format=json",
           f"--benchmark_min_time={min_time}"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    result = {}
    for b in json.loads(out)["benchmarks"]:
        result[b["name"].split("/min_time")[0].replace("/real_time", "")] = b.get(
            "GFLOP/s", b.get("GB/s"))
    return result


def row(layer, op, ours, theirs, base=None, sgemm=None):
    ratio = ours / theirs if theirs else float("nan")
    text = f"{layer:20s} {op:22s} {ours:9.1f} {theirs:9.1f} {ratio:6.2f}"
    text += f" {base:9.1f} {ours / base:6.2f}" if base is not None else " " * 17
    text += f" {sgemm:8.1f}" if sgemm is not None else ""
    print(text, flush=True)


def best_of(results):
    """Per key, the largest value over a list of {key: value}."""
    return {k: max(r[k] for r in results) for k in results[0]}


def measure(args, names, torch_fn):
    """flowbench (and baseline) values of `names` and torch_fn()'s, alternating, each the best of
    --repeat rounds (on a loaded machine the best is the least disturbed)."""
    ours, theirs, base = [], [], []
    for _ in range(args.repeat):
        ours.append(flowbench(args.bench, names, args.min_time))
        theirs.append(torch_fn())
        if args.baseline:
            base.append(flowbench(args.baseline, names, args.min_time))
    return best_of(ours), best_of(theirs), best_of(base) if base else {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="build/flowbench-bench")
    ap.add_argument("--baseline", default="",
                    help="a second flowbench-bench (e.g. before a change), run after each layer")
    ap.add_argument("--only", default="", help="regex on layer names")
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds per measurement")
    ap.add_argument("--repeat", type=int, default=1, help="rounds per layer; the best is shown")
    args = ap.parse_args()
    torch.set_num_threads(2)
    only = re.compile(args.only)
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"{'layer':20s} {'op':22s} {'flowbench':>9s} {'torch':>9s} {'ratio':>6s} "
          f"{'baseline':>9s} {'speedup':>6s} {'sgemm':>8s}")
    for layer in CONV_LAYERS:
        if not only.search(layer[0]):
            continue
        names = [f"{p}/{layer[0]}" for p in CONV_PASSES + ("Sgemm",)]
        ours, theirs, base = measure(args, names, lambda: torch_conv(layer, args.min_time))
        for p in CONV_PASSES:
            key = f"{p}/{layer[0]}"
            row(layer[0], p, ours[key], theirs[p], base.get(key), ours[f"Sgemm/{layer[0]}"])
    for layer in POOL_LAYERS:
        if not only.search(layer[0]):
            continue
        kind = "MaxPool" if layer[8] else "AvgPool"
        names = [f"{op}/{layer[0]}" for op in (kind, kind + "Grad")]
        ours, theirs, base = measure(args, names, lambda: torch_pool(layer, args.min_time))
        for op, value in theirs.items():
            key = f"{op}/{layer[0]}"
            row(layer[0], op + " GB/s", ours[key], value, base.get(key))
    if only.search("vgg_conv2"):
        names = [f"{op}/vgg_conv2" for op in ("BiasAdd", "BiasAddGrad", "Relu", "ReluGrad")]
        ours, theirs, base = measure(args, names, lambda: torch_elementwise(args.min_time))
        for op, value in theirs.items():
            key = f"{op}/vgg_conv2"
            row("vgg_conv2", op + " GB/s", ours[key], value, base.get(key))
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
