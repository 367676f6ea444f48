#!/usr/bin/python3
"""A GPU cost model for the OSDI 2016 reproductions: per-node work from flowbench's shared cost
model (engine/placement/op_cost.h, dumped by build/flowbench-osdi-opwork) priced on a GPU given
by its specs (experiments/devices/*.json: peak FLOP/s, memory bandwidth, launch overhead) and
per-op-type efficiencies.

Time of one node (ns) with work > 0, on one stream (the GPU runs one kernel at a time):
    launch_overhead_ns + 1e9 * max(flops / (peak * eff[class]), bytes / (bandwidth * eff["memory"]))
Nodes without work (Variables, Identity, Reshape, ...) and nodes the pass does not need (the
gradient with respect to the input images, `needed` = 0) cost nothing. A pass is the sum of its
nodes (TensorFlow 2016 ran a GPU's kernels on one compute stream).

Op classes (op_class): conv_fwd / conv_bwd_data / conv_bwd_filter for convolutions with a
kernel larger than 1x1 (where cuDNN's FFT and Winograd algorithms apply, so an efficiency above 1
against direct-convolution FLOPs is possible and expected), conv1x1 for 1x1 convolutions in all
three directions (plain GEMMs), matmul, and memory for everything else (bandwidth-bound: bias,
ReLU, pooling, concatenation, their gradients).
"""
import csv
import json

CLASSES = ("conv_fwd", "conv_bwd_data", "conv_bwd_filter", "conv1x1", "matmul", "memory")

# Efficiencies not calibrated (priors): a Maxwell SGEMM reaches about 75-80% of peak (cuBLAS,
# Paleo's PPP_comp 0.62 for whole layers); streaming kernels about 75% of the bandwidth.
PRIOR_EFFICIENCIES = {"conv_fwd": 1.0, "conv_bwd_data": 1.0, "conv_bwd_filter": 1.0,
                      "conv1x1": 0.75, "matmul": 0.75, "memory": 0.75}


class CostModelError(Exception):
    """A user-facing failure naming the file or value at fault."""


def load_device(path):
    """The first GPU of a device description (experiments/devices/*.json)."""
    try:
        with open(path) as f:
            desc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise CostModelError(f"device description {path}: {e}")
    for d in desc.get("devices", []):
        if d.get("type") == "GPU":
            for key in ("peak_flops_per_s", "memory_bandwidth_bytes_per_s", "launch_overhead_ns"):
                if not isinstance(d.get(key), (int, float)) or d[key] < 0 or (
                        key != "launch_overhead_ns" and d[key] == 0):
                    raise CostModelError(f"device description {path}: GPU '{d.get('name')}' "
                                         f"needs a positive number for {key}, found {d.get(key)!r}")
            return d
    raise CostModelError(f"device description {path}: no device of type GPU")


def load_work(path):
    """Rows of a flowbench-osdi-opwork CSV that the pass needs and that do work."""
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            flops, nbytes = float(r["flops"]), float(r["bytes_accessed"])
            if r.get("needed", "1") == "0" or (flops == 0 and nbytes == 0):
                continue
            rows.append({"node": r["node"], "op": r["op"], "flops": flops, "bytes": nbytes,
                         "kernel": r.get("kernel", "")})
    if not rows:
        raise CostModelError(f"{path}: no node with work (is it a flowbench-osdi-opwork CSV?)")
    return rows


def op_class(row):
    op = row["op"]
    if op.startswith("Conv2D"):
        if row["kernel"] == "1x1":
            return "conv1x1"
        return {"Conv2D": "conv_fwd", "Conv2DBackpropInput": "conv_bwd_data",
                "Conv2DBackpropFilter": "conv_bwd_filter"}.get(op, "memory")
    if op in ("MatMul", "BatchMatMul"):
        return "matmul"
    return "memory"


def node_ns(row, device, eff):
    cls = op_class(row)
    compute = row["flops"] / (device["peak_flops_per_s"] * (eff[cls] if cls != "memory" else 1))
    memory = row["bytes"] / (device["memory_bandwidth_bytes_per_s"] * eff["memory"])
    return device["launch_overhead_ns"] + 1e9 * max(compute, memory)


def predict(rows, device, eff):
    """(total ms, {class: ms}) of one pass."""
    by_class = {c: 0.0 for c in CLASSES}
    by_class["launch"] = 0.0
    for r in rows:
        ns = node_ns(r, device, eff)
        by_class[op_class(r)] += (ns - device["launch_overhead_ns"]) / 1e6
        by_class["launch"] += device["launch_overhead_ns"] / 1e6
    return sum(by_class.values()), by_class


def solve(f, target, lo=0.01, hi=100.0):
    """x in [lo, hi] with f(x) = target for f decreasing in x (bisection on a log scale)."""
    if not (f(hi) <= target <= f(lo)):
        raise CostModelError(f"cannot calibrate: target {target:.2f} ms is outside "
                             f"[{f(hi):.2f}, {f(lo):.2f}] ms reachable with efficiencies in "
                             f"[{lo}, {hi}]")
    for _ in range(100):
        mid = (lo * hi) ** 0.5
        if f(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo * hi) ** 0.5


def calibrate(fwd_rows, fb_rows, device, fwd_ms, bwd_ms, prior=PRIOR_EFFICIENCIES):
    """Efficiencies with conv_fwd set so the forward pass takes fwd_ms, then conv_bwd_data =
    conv_bwd_filter set so the forward+backward pass takes fwd_ms + bwd_ms; the other classes
    keep their priors."""
    eff = dict(prior)

    def fwd(x):
        return predict(fwd_rows, device, dict(eff, conv_fwd=x))[0]
    eff["conv_fwd"] = solve(fwd, fwd_ms)

    def fb(x):
        return predict(fb_rows, device, dict(eff, conv_bwd_data=x, conv_bwd_filter=x))[0]
    x = solve(fb, fwd_ms + bwd_ms)
    eff["conv_bwd_data"] = eff["conv_bwd_filter"] = x
    return eff
