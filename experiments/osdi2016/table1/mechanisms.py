#!/usr/bin/python3
"""What-ifs of the simulated Table 1 (experiments/osdi2016/table1/run part (c)): each candidate
mechanism for GoogLeNet's low published rate, calibrated on the same model as the run
(spec.yaml: calibrate_on) and judged by the errors of the other models. Called by ./run (its
report.md table "Mechanisms tried"); standalone:

  experiments/osdi2016/table1/mechanisms.py [--out DIR]   (DIR/work/*.csv from a run; default
                                                           results)

Variants (all on top of the cost model of ../gpu_cost_model.py unless said otherwise):
  gemm only        no FFT: every convolution an implicit GEMM at the calibrated efficiency
  fft or gemm      the model of the run (cuDNN's faster algorithm per convolution, NCHW with
                   TensorFlow's filter transforms and odd-padding copies around each cuDNN call)
  cuDNN only       the same without TensorFlow's kernels around the cuDNN calls (the model before)
  NHWC             TensorFlow's NHWC path (before the scripts switched to NCHW in March 2016):
                   transposes around each cuDNN call, 1x1 stride-1 filters through cuBLAS
  FFT first        the FFT wherever cuDNN can use it, faster or not (what cuDNN R4's heuristic
                   might do given TensorFlow's 4 GB workspace limit; its choices are undocumented)
  no bwd fft       the FFT for forward convolutions only
  tiles + waves    implicit GEMMs lose the tile and wave quantization of a 24-SM GPU (GTX Titan
                   X: 24 SMM, /work/shared/papers/osdi2016-benchmarks.md 2.1): the best of
                   128x128, 128x64 and 128x32 output tiles (M x N) per GEMM, utilization =
                   M*N / (padded tiles) * tiles / (waves * 24); the backward-filter GEMM splits
                   its long reduction (N*P*Q), so only its tile edges count
  memory eff x     bandwidth-bound ops (and every byte term) at x of the 336.5 GB/s
  launch x us      x us per op instead of the device file's
  diagnostic       efficiencies calibrated as the run, every model then priced without the FFT
                   (not a model: it shows how much of a prediction rests on the FFT)
"""
import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gpu_cost_model as gcm  # noqa: E402

MODELS = ("alexnet", "overfeat", "vgg_a", "googlenet")
LABELS = {"alexnet": "AlexNet", "overfeat": "Overfeat", "vgg_a": "VGG-A", "googlenet": "GoogLeNet"}
SMS = 24
TILES = ((128, 128), (128, 64), (128, 32))


def tile_utilization(m, n, split_k=False, sms=SMS, tiles=TILES):
    """Best fraction of the GPU's tile slots doing useful work for an M x N GEMM output."""
    best = 0.0
    for tm, tn in tiles:
        count = math.ceil(m / tm) * math.ceil(n / tn)
        edge = m * n / (count * tm * tn)
        fill = 1.0 if split_k else count / (math.ceil(count / sms) * sms)
        best = max(best, edge * fill)
    return best


def gemm_dims(row):
    """(M, N, split_k) of the implicit GEMM of a convolution row, None without shapes."""
    x, y = gcm.shape_dims(row.get("x_shape", "")), gcm.shape_dims(row.get("y_shape", ""))
    try:
        r, s = (int(v) for v in row.get("kernel", "").split("x"))
    except ValueError:
        return None
    if x is None or y is None:
        return None
    (n, h, w, c), (_, p, q, k) = x, y
    return {"Conv2D": (n * p * q, k, False), "Conv2DBackpropInput": (n * h * w, c, False),
            "Conv2DBackpropFilter": (r * s * c, k, True)}.get(row["op"])


def with_tiles(rows):
    """Rows whose implicit-GEMM FLOPs are divided by their tile utilization."""
    out = []
    for r in rows:
        dims = gemm_dims(r) if gcm.op_class(r) in gcm.CONV_CLASSES else None
        out.append(dict(r, flops=r["flops"] / tile_utilization(*dims)) if dims else r)
    return out


def variants(device):
    """(name, device, prior efficiencies, pricing when calibrating, pricing when predicting,
    tiles + waves)."""
    run = gcm.DEFAULT_PRICING
    no_fft, fwd_fft = run._replace(fft_classes=()), run._replace(fft_classes=("conv_fwd",))
    bare, nhwc = run._replace(data_format=None), run._replace(data_format="NHWC")
    fft_first = run._replace(choice="fft_when_eligible")
    prior = gcm.PRIOR_EFFICIENCIES
    return [
        ("gemm only (no FFT)", device, prior, no_fft, no_fft, False),
        ("FFT or GEMM, NCHW with TensorFlow's filter transforms and pad copies (the run's model)",
         device, prior, run, run, False),
        ("FFT or GEMM, cuDNN calls only (no TensorFlow layout kernels)", device, prior, bare, bare,
         False),
        ("FFT or GEMM, NHWC: transposes around each cuDNN call, 1x1 through cuBLAS", device,
         prior, nhwc, nhwc, False),
        ("FFT wherever cuDNN can use it (stride 1, filter > 1x1)", device, prior, fft_first,
         fft_first, False),
        ("FFT for forward convolutions only", device, prior, fwd_fft, fwd_fft, False),
        ("FFT or GEMM, tiles + waves on 24 SMs", device, prior, run, run, True),
        ("FFT or GEMM, memory efficiency 0.6", device, dict(prior, memory=0.6), run, run, False),
        ("FFT or GEMM, memory efficiency 0.5", device, dict(prior, memory=0.5), run, run, False),
        ("FFT or GEMM, 20 us per op", dict(device, launch_overhead_ns=20000), prior, run, run,
         False),
        ("FFT or GEMM, 50 us per op", dict(device, launch_overhead_ns=50000), prior, run, run,
         False),
        ("diagnostic: calibrated as the run, predicted without FFT", device, prior, run, no_fft,
         False),
    ]


def table(work, device, pub, calibrate_on):
    """Markdown lines: per variant the calibrated efficiencies and every model's errors."""
    lines = ["| variant | conv_fwd eff | conv_bwd eff | " + " | ".join(
        f"{LABELS[m]} fwd / fwd+bwd" for m in MODELS) + " |",
        "|---|---|---|" + "---|" * len(MODELS)]
    for name, dev, prior, cal_pricing, pricing, tiles in variants(device):
        w = {k: with_tiles(v) if tiles else v for k, v in work.items()}
        try:
            eff = gcm.calibrate(w[(calibrate_on, "forward")], w[(calibrate_on, "forward-backward")],
                                dev, *pub[calibrate_on], prior=prior, pricing=cal_pricing)
        except gcm.CostModelError as e:
            lines.append(f"| {name} | {e} |" + " |" * (len(MODELS) + 1))
            continue
        errs = []
        for m in MODELS:
            f = gcm.predict(w[(m, "forward")], dev, eff, pricing)[0] / pub[m][0] - 1
            fb = gcm.predict(w[(m, "forward-backward")], dev, eff, pricing)[0] / sum(pub[m]) - 1
            errs.append(f"{100 * f:+.0f}% / {100 * fb:+.0f}%")
        lines.append(f"| {name} | {eff['conv_fwd']:.2f} | {eff['conv_bwd_data']:.2f} | "
                     + " | ".join(errs) + " |")
    return lines


def needed_scales(rows_fwd, rows_fb, device, eff, published):
    """{(part, pass): factor}: by how much the pass's convolution time ("conv") or memory-bound
    time ("memory", TensorFlow's layout kernels included) alone would have to grow for the
    simulated forward ("fwd") and backward ("bwd", forward+backward minus forward) times to equal
    the published (forward_ms, backward_ms); below 1 means shrink. None where the part is 0."""
    fwd_ms, f = gcm.predict(rows_fwd, device, eff)
    fb_ms, fb = gcm.predict(rows_fb, device, eff)
    parts = {("conv", "fwd"): f["conv_fwd"],
             ("conv", "bwd"): fb["conv_bwd_data"] + fb["conv_bwd_filter"],
             ("memory", "fwd"): f["memory"], ("memory", "bwd"): fb["memory"] - f["memory"]}
    gap = {"fwd": published[0] - fwd_ms, "bwd": published[1] - (fb_ms - fwd_ms)}
    return {k: (1 + gap[k[1]] / v if v > 0 else None) for k, v in parts.items()}


def scale_table(work, device, pub, calibrate_on):
    """Markdown lines: needed_scales() of every model with the run's efficiencies ("impossible"
    where even a time of 0 for that part leaves the simulation slower than published)."""
    eff = gcm.calibrate(work[(calibrate_on, "forward")], work[(calibrate_on, "forward-backward")],
                        device, *pub[calibrate_on])
    lines = ["| model | convolutions fwd | convolutions bwd | memory-bound fwd | "
             "memory-bound bwd |", "|---|---|---|---|---|"]
    for m in MODELS:
        k = needed_scales(work[(m, "forward")], work[(m, "forward-backward")], device, eff, pub[m])
        cells = ["-" if k[key] is None else f"x{k[key]:.2f}" if k[key] > 0 else "impossible"
                 for key in
                 (("conv", "fwd"), ("conv", "bwd"), ("memory", "fwd"), ("memory", "bwd"))]
        lines.append(f"| {LABELS[m]} | " + " | ".join(cells) + " |")
    return lines


def main():
    import yaml
    sys.path.insert(0, HERE)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(HERE, "results"),
                   help="a run's output directory (reads its work/*.csv)")
    args = p.parse_args()
    with open(os.path.join(HERE, "spec.yaml")) as f:
        cfg = yaml.safe_load(f)
    import common
    pub = {r["model"]: (float(r["forward_ms"]), float(r["backward_ms"]))
           for r in common.read_csv(os.path.join(HERE, "published.csv"))
           if r["framework"] == "TensorFlow"}
    device = gcm.load_device(os.path.join(common.REPO, cfg["sim"]["device"]))
    work = {}
    for m in MODELS:
        for mode in ("forward", "forward-backward"):
            path = os.path.join(args.out, "work", f"{m}.{mode}.csv")
            if not os.path.exists(path):
                sys.exit(f"mechanisms.py: {path} not found: run experiments/osdi2016/table1/run "
                         f"--skip-cpu first (it writes the work CSVs)")
            work[(m, mode)] = gcm.load_work(path)
    print("\n".join(table(work, device, pub, cfg["sim"]["calibrate_on"])))
    print()
    print("\n".join(scale_table(work, device, pub, cfg["sim"]["calibrate_on"])))


if __name__ == "__main__":
    main()
