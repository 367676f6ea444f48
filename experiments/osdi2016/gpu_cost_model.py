#!/usr/bin/python3
"""A GPU cost model for the OSDI 2016 reproductions: per-node work from flowbench's shared cost
model (engine/placement/op_cost.h, dumped by build/flowbench-osdi-opwork) priced on a GPU given
by its specs (experiments/devices/*.json: peak FLOP/s, memory bandwidth, launch overhead) and
per-op-type efficiencies.

Time of one node (ns) with work > 0, on one stream (the GPU runs one kernel at a time):
    launch_overhead_ns + 1e9 * max(flops / (peak * eff[class]), bytes / (bandwidth * eff["memory"]))
except for convolutions, which take the faster of cuDNN's two algorithm families (below) plus
the memory-bound kernels TensorFlow ran around each cuDNN call (layout_kernels, last section),
each with its own launch.
Nodes without work (Variables, Identity, Reshape, ...) and nodes the pass does not need (the
gradient with respect to the input images, `needed` = 0) cost nothing. A pass is the sum of its
nodes (TensorFlow 2016 ran a GPU's kernels on one compute stream).

Op classes (op_class): conv_fwd / conv_bwd_data / conv_bwd_filter for the three directions of a
convolution, matmul, and memory for everything else (bandwidth-bound: bias, ReLU, pooling,
concatenation, their gradients). eff[conv_*] is the fraction of peak that the direction's GEMM
reaches, calibrated; matmul and memory keep priors.

Convolution algorithms (conv_ns). cuDNN R4/R5, which TensorFlow and Torch used for OSDI Table 1,
runs a convolution either as an implicit GEMM (direct FLOPs; every shape) or through the FFT
(Mathieu et al. 2014, "Fast training of convolutional networks through FFTs"; Vasilache et al.
2015, "Fast convolutional nets with fbfft", ICLR: cuFFT transforms + a batched complex GEMM per
frequency + inverse transform), which cuDNN supports only at stride 1 (cuDNN API reference,
CUDNN_CONVOLUTION_*_ALGO_FFT: "vertical and horizontal filter stride must equal 1"); TensorFlow's
and Torch's algorithm choice (cuDNN's heuristics / cudnn.benchmark) takes the faster. For the
forward shapes x [N,H,W,C], y [N,P,Q,K] and an RxS filter (the same numbers in all three
directions: each is one product per (image, input channel, output channel) and frequency):
    implicit GEMM:  max(flops / (peak * eff[dir]), bytes / (bandwidth * eff["memory"]))
    FFT (stride 1, R*S > 1):
        bins  = Fh * (Fw / 2 + 1),  Fh = pow2ceil(P + R - 1), Fw = pow2ceil(Q + S - 1)
                (a real 2-D FFT of the zero-padded Fh x Fw plane, Hermitian half, power-of-two
                sizes as fbfft)
        product flops = 8 * N * C * K * bins          (a complex multiply-add is 8 real FLOPs)
        transform bytes = 8 * bins * 2 * (N*C + C*K + N*K)      (complex fp32 spectra of the
                          input, filter and output, each written by its transform and read once)
                        + 4 * (N*H*W*C + R*S*C*K + N*P*Q*K)      (the fp32 tensors themselves)
        time = product flops / (peak * eff[dir]) + transform bytes / (bandwidth * eff["memory"])
The FFT's cost does not grow with R*S nor with P*Q beyond the padded plane, so it pays off for
large kernels and many channels (AlexNet's 5x5 on 27x27: 8x fewer FLOPs) and not for 1x1 nor
strided convolutions, which stay GEMMs at eff[dir] <= 1. Rows without the shape columns (older
CSVs) are priced as implicit GEMMs.

What TensorFlow ran for Table 1 (the TensorFlow column is soumith/convnet-benchmarks commit
84b5bb1, 2016-04-25, "new tensorflow numbers at commit 55068f32"; rules below from the sources
named, the stored versions of TensorFlow's files of that time: NCHW support, no autotuning):
  * cuDNN R4: the TensorFlow team's own numbers for these scripts, "At TF commit 3a955eb, with
    Cuda 7.5 and Cudnn R4" (convnet-benchmarks pull request #96, 2016-03-14); TensorFlow's install
    guide until September 2016: "works best with Cuda Toolkit 7.5 and cuDNN v4" (pull requests
    #4109, #4236). The April log does not print the version.
  * NCHW: the scripts' `data_format` defaults to 'NCHW' since pull request #96 ("make use of the
    new NCHW format support on GPU"), so conv_ops.cc / conv_grad_ops.cc skip their NHWC<->NCHW
    transposes ("if (data_format == FORMAT_NHWC) { // Convert the input tensor from NHWC to
    NCHW"), and their cuBLAS shortcut for 1x1 filters ("1x1 filter, so call cublas directly", only
    `data_format == FORMAT_NHWC`) is off: all three directions of every convolution, 1x1
    included, go to cuDNN (priced here at the conv_* efficiencies).
  * Algorithm: cuda_dnn.cc's DoConvolve, DoConvolveBackwardData and DoConvolveBackwardFilter call
    cudnnGetConvolution{Forward,BackwardData,BackwardFilter}Algorithm (cuDNN's heuristics, no
    cudnnFind, no autotuning) with the *_SPECIFY_WORKSPACE_LIMIT preference and the scratch
    allocator's limit, which conv_ops.cc and conv_grad_ops.cc set to TF_CUDNN_WORKSPACE_LIMIT_IN_MB
    or "1LL << 32  // 4GB by default" (falling back to *_NO_WORKSPACE when the allocation fails).
    So every direction may take cuDNN R4's FFT (BWD_DATA_ALGO_FFT, BWD_FILTER_ALGO_FFT included)
    with any workspace it needs. Which algorithm the heuristic picks per shape is not documented;
    the model keeps the faster of the two families as its stand-in (Torch with the same cuDNN R4
    and exhaustive search, cudnn.benchmark = true, took 470 ms on GoogLeNet against TensorFlow's
    445, so the heuristic did not lose time there).
  * Per convolution, TensorFlow's own kernels around the cuDNN call (layout_kernels(), priced as
    memory-bound kernels with a launch each): the filter from TensorFlow's [R,S,C,K] to cuDNN's
    [K,C,R,S] before Conv2D and Conv2DBackpropInput ("functor::TransformFilter") and the filter
    gradient back after Conv2DBackpropFilter ("functor::ReverseTransformFilter"), each reading and
    writing the filter; with SAME padding whose total is odd ("cuDNN only supports equal padding
    on both sides"), a padded copy of the input before Conv2D and Conv2DBackpropFilter
    ("functor::PadInput") and a cropping copy of the input gradient after Conv2DBackpropInput.
    data_format="NHWC" prices the older path instead (a what-if: experiments/osdi2016/table1/
    mechanisms.py): the transposes of the input and output (forward), of the output gradient and
    the input gradient (backward data), of the output gradient and the input (backward filter),
    and 1x1 stride-1 filters through cuBLAS without any of these kernels.
"""
import collections
import csv
import json

CLASSES = ("conv_fwd", "conv_bwd_data", "conv_bwd_filter", "matmul", "memory")
CONV_CLASSES = CLASSES[:3]
# Layouts of TensorFlow's convolution ops that layout_kernels() prices; None: no kernels besides
# cuDNN's (the model before these rules, kept as a what-if).
DATA_FORMATS = ("NCHW", "NHWC", None)
CHOICES = ("fastest", "fft_when_eligible")
# How convolutions are priced: the directions that may use the FFT, the layout of TensorFlow's
# convolution ops (layout_kernels) and the algorithm choice (conv_ns). The default is what
# TensorFlow ran for Table 1 (module docstring).
Pricing = collections.namedtuple("Pricing", "fft_classes data_format choice",
                                 defaults=(CONV_CLASSES, "NCHW", "fastest"))
DEFAULT_PRICING = Pricing()

# Efficiencies not calibrated (priors): a Maxwell SGEMM reaches about 75-80% of peak (cuBLAS,
# Paleo's PPP_comp 0.62 for whole layers); streaming kernels about 75% of the bandwidth. The
# convolution ones are starting points that calibrate() replaces.
PRIOR_EFFICIENCIES = {"conv_fwd": 0.75, "conv_bwd_data": 0.75, "conv_bwd_filter": 0.75,
                      "matmul": 0.75, "memory": 0.75}


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
                         "kernel": r.get("kernel", ""), "stride": r.get("stride", ""),
                         "x_shape": r.get("x_shape", ""), "y_shape": r.get("y_shape", "")})
    if not rows:
        raise CostModelError(f"{path}: no node with work (is it a flowbench-osdi-opwork CSV?)")
    return rows


def op_class(row):
    op = row["op"]
    if op.startswith("Conv2D"):
        return {"Conv2D": "conv_fwd", "Conv2DBackpropInput": "conv_bwd_data",
                "Conv2DBackpropFilter": "conv_bwd_filter"}.get(op, "memory")
    if op in ("MatMul", "BatchMatMul"):
        return "matmul"
    return "memory"


def pow2ceil(n):
    return 1 << max(0, int(n) - 1).bit_length()


def shape_dims(text):
    """[4 ints] of an "AxBxCxD" shape column, None when empty or malformed."""
    try:
        dims = [int(v) for v in text.split("x")]
    except ValueError:
        return None
    return dims if len(dims) == 4 and min(dims) > 0 else None


def fft_work(row):
    """(product FLOPs, transform bytes) of the row's convolution through the FFT, or None when
    cuDNN cannot use the FFT for it (stride > 1, a 1x1 filter) or the shapes are missing."""
    x, y = shape_dims(row.get("x_shape", "")), shape_dims(row.get("y_shape", ""))
    try:
        r, s = (int(v) for v in row.get("kernel", "").split("x"))
    except ValueError:
        return None
    if x is None or y is None or row.get("stride") != "1" or r * s <= 1:
        return None
    (n, h, w, c), (_, p, q, k) = x, y
    bins = pow2ceil(p + r - 1) * (pow2ceil(q + s - 1) // 2 + 1)
    flops = 8.0 * n * c * k * bins
    nbytes = 8.0 * bins * 2 * (n * c + c * k + n * k) + 4.0 * (n * h * w * c + r * s * c * k +
                                                               n * p * q * k)
    return flops, nbytes


def conv_geometry(row):
    """(n, h, w, c, p, q, k, r, s, stride) of a convolution row from its forward shapes, or None
    when a shape column is missing or malformed."""
    x, y = shape_dims(row.get("x_shape", "")), shape_dims(row.get("y_shape", ""))
    try:
        r, s = (int(v) for v in row.get("kernel", "").split("x"))
        stride = int(row.get("stride", ""))
    except ValueError:
        return None
    if x is None or y is None or min(r, s, stride) <= 0:
        return None
    return (*x, *y[1:], r, s, stride)


def layout_kernels(row, data_format="NCHW"):
    """Bytes moved by each memory-bound kernel that TensorFlow's GPU convolution op of spring
    2016 ran around its cuDNN call for this row (one list entry per kernel; sources in the
    module docstring). [] for rows that are not convolutions, rows without shapes, data_format
    None, and NHWC 1x1 stride-1 filters (cuBLAS directly). Raises CostModelError for a
    data_format not in DATA_FORMATS."""
    if data_format not in DATA_FORMATS:
        raise CostModelError(f"data_format {data_format!r}: expected one of {DATA_FORMATS}")
    g = conv_geometry(row) if op_class(row) in CONV_CLASSES else None
    if g is None or data_format is None:
        return []
    n, h, w, c, p, q, k, r, s, stride = g
    if data_format == "NHWC" and r == s == stride == 1:
        return []
    # Odd total SAME padding (VALID gives a total <= 0): one more row/column, padded or cropped.
    ro = max(0, (p - 1) * stride + r - h) % 2
    co = max(0, (q - 1) * stride + s - w) % 2
    x, x_padded, y = n * h * w * c, n * (h + ro) * (w + co) * c, n * p * q * k
    kernels = [8.0 * r * s * c * k]                     # (Reverse)TransformFilter: read + write
    if ro or co:
        kernels.append(4.0 * (x + x_padded))            # PadInput or its cropping copy
    if data_format == "NHWC":
        op = row["op"]
        kernels += {"Conv2D": [8.0 * x_padded, 8.0 * y],
                    "Conv2DBackpropInput": [8.0 * y, 8.0 * x],
                    "Conv2DBackpropFilter": [8.0 * y, 8.0 * x_padded]}.get(op, [])
    return kernels


def conv_ns(row, device, eff, pricing=DEFAULT_PRICING):
    """(ns without launch, "fft" or "gemm") of a convolution's cuDNN call: the faster algorithm,
    or the FFT wherever cuDNN can use it with pricing.choice "fft_when_eligible"; the FFT only for
    the directions in pricing.fft_classes (what-ifs: experiments/osdi2016/table1/mechanisms.py)."""
    if pricing.choice not in CHOICES:
        raise CostModelError(f"algorithm choice {pricing.choice!r}: expected one of {CHOICES}")
    cls = op_class(row)
    peak = device["peak_flops_per_s"] * eff[cls]
    bandwidth = device["memory_bandwidth_bytes_per_s"] * eff["memory"]
    gemm = 1e9 * max(row["flops"] / peak, row["bytes"] / bandwidth)
    fft = fft_work(row) if cls in pricing.fft_classes else None
    if fft is not None:
        fft_ns = 1e9 * (fft[0] / peak + fft[1] / bandwidth)
        if fft_ns < gemm or pricing.choice == "fft_when_eligible":
            return fft_ns, "fft"
    return gemm, "gemm"


def node_parts(row, device, eff, pricing=DEFAULT_PRICING):
    """(class, ns of the node's own kernel without launch, ns of TensorFlow's layout kernels
    around it without launch, number of kernels launched) of one row."""
    cls = op_class(row)
    bandwidth = device["memory_bandwidth_bytes_per_s"] * eff["memory"]
    if cls in CONV_CLASSES:
        extra = layout_kernels(row, pricing.data_format)
        return cls, conv_ns(row, device, eff, pricing)[0], 1e9 * sum(extra) / bandwidth, \
            1 + len(extra)
    compute = row["flops"] / (device["peak_flops_per_s"] * (eff[cls] if cls != "memory" else 1))
    return cls, 1e9 * max(compute, row["bytes"] / bandwidth), 0.0, 1


def node_ns(row, device, eff, pricing=DEFAULT_PRICING):
    """ns of one row: its kernel, TensorFlow's layout kernels around it and their launches."""
    _, own, extra, kernels = node_parts(row, device, eff, pricing)
    return own + extra + kernels * device["launch_overhead_ns"]


def algorithm_counts(rows, device, eff, pricing=DEFAULT_PRICING):
    """{"fft": n, "gemm": n}: how many of the pass's convolutions take each algorithm."""
    counts = {"fft": 0, "gemm": 0}
    for r in rows:
        if op_class(r) in CONV_CLASSES:
            counts[conv_ns(r, device, eff, pricing)[1]] += 1
    return counts


def predict(rows, device, eff, pricing=DEFAULT_PRICING):
    """(total ms, {class: ms}) of one pass; TensorFlow's layout kernels count as "memory", every
    kernel's launch as "launch"."""
    by_class = {c: 0.0 for c in CLASSES}
    by_class["launch"] = 0.0
    for r in rows:
        cls, own, extra, kernels = node_parts(r, device, eff, pricing)
        by_class[cls] += own / 1e6
        by_class["memory"] += extra / 1e6
        by_class["launch"] += kernels * device["launch_overhead_ns"] / 1e6
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


def calibrate(fwd_rows, fb_rows, device, fwd_ms, bwd_ms, prior=PRIOR_EFFICIENCIES,
              pricing=DEFAULT_PRICING):
    """Efficiencies with conv_fwd set so the forward pass takes fwd_ms, then conv_bwd_data =
    conv_bwd_filter set so the forward+backward pass takes fwd_ms + bwd_ms; the other classes
    keep their priors."""
    eff = dict(prior)

    def fwd(x):
        return predict(fwd_rows, device, dict(eff, conv_fwd=x), pricing)[0]
    eff["conv_fwd"] = solve(fwd, fwd_ms)

    def fb(x):
        return predict(fb_rows, device, dict(eff, conv_bwd_data=x, conv_bwd_filter=x),
                       pricing)[0]
    x = solve(fb, fwd_ms + bwd_ms)
    eff["conv_bwd_data"] = eff["conv_bwd_filter"] = x
    return eff
