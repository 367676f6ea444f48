#!/usr/bin/python3
"""Plots a flowbench trace: the loss (and other metric) curves and a one-step timeline.

Usage: analysis/plot_trace.py TRACE.h5 [--out-dir DIR] [--step N]
Writes DIR/<name>_metrics.png (one panel per metric in /metrics; the /steps loss when /metrics
is empty) and DIR/<name>_timeline_step<N>.png: one row per (device, thread/stream) with that
step's events as bars coloured by kind (compute, send, recv, memcpy). The default step is the
one with the median duration. DIR defaults to the trace's directory. Format:
docs/trace-format.md.
"""
import argparse
import os
import sys

from trace_io import TraceError, load_trace, median_step

KIND_COLORS = {"compute": "tab:blue", "send": "tab:orange", "recv": "tab:green",
               "memcpy": "tab:red", "unknown": "tab:gray"}


def pyplot():
    """matplotlib with the file-only Agg backend, imported only when something is drawn."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_metrics(trace, out):
    """One panel per metric name; returns False when the trace holds no metric and no loss."""
    metrics = trace["metrics"]
    if metrics.empty:
        steps = trace["steps"].dropna(subset=["loss"])
        metrics = steps.assign(name="loss", value=steps["loss"])[["step", "name", "value"]]
    if metrics.empty:
        return False
    names = sorted(metrics["name"].unique(), key=lambda n: (n != "loss", n))
    plt = pyplot()
    fig, axes = plt.subplots(len(names), 1, figsize=(7, 2.6 * len(names)), squeeze=False)
    for ax, name in zip(axes[:, 0], names):
        rows = metrics[metrics["name"] == name].sort_values("step")
        ax.plot(rows["step"], rows["value"], marker="." if len(rows) < 50 else None)
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("step")
    axes[-1, 0].xaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return True


def plot_timeline(trace, step, out):
    """Bars of one step's events, one row per (device, rank, stream); times from the step's
    first event, in ms (or us for steps shorter than 1 ms)."""
    ev = trace["events"]
    ev = ev[ev["step"] == step]
    plt = pyplot()
    t0 = ev["start_ns"].min()
    unit, scale = ("ms", 1e6) if ev["end_ns"].max() - t0 >= 1e6 else ("us", 1e3)
    rows = sorted(ev.groupby(["device_name", "rank", "stream"]).groups.keys())
    fig, ax = plt.subplots(figsize=(11, 1.0 + 0.45 * len(rows)))
    for y, key in enumerate(rows):
        sel = ev[(ev["device_name"] == key[0]) & (ev["rank"] == key[1]) & (ev["stream"] == key[2])]
        spans = list(zip((sel["start_ns"] - t0) / scale, sel["duration_ns"] / scale))
        colors = [KIND_COLORS.get(k, "tab:gray") for k in sel["kind_name"]]
        ax.broken_barh(spans, (y - 0.4, 0.8), facecolors=colors, edgecolor="black",
                       linewidth=0.2)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{d.split('/')[-1] or d} r{r} t{s}" for d, r, s in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"{unit} since the step's first event")
    ax.set_title(f"step {step}: {len(ev)} events")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for k, c in KIND_COLORS.items()
               if k in set(ev["kind_name"])]
    ax.legend(handles, [k for k in KIND_COLORS if k in set(ev["kind_name"])], loc="upper right",
              fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace")
    p.add_argument("--out-dir", help="where to write PNGs (default: the trace's directory)")
    p.add_argument("--step", type=int, help="step for the timeline (default: median duration)")
    args = p.parse_args()
    out_dir = args.out_dir or os.path.dirname(os.path.abspath(args.trace))
    stem = os.path.splitext(os.path.basename(args.trace))[0]
    try:
        trace = load_trace(args.trace)
        events = trace["events"]
        step = None
        if not events.empty:
            step = args.step if args.step is not None else median_step(trace)
            if not (events["step"] == step).any():
                raise TraceError(f"{args.trace}: step {step} has no events")
        os.makedirs(out_dir, exist_ok=True)
        metrics_png = os.path.join(out_dir, f"{stem}_metrics.png")
        if plot_metrics(trace, metrics_png):
            print(metrics_png)
        else:
            print(f"{args.trace}: no metrics and no loss; skipped the metrics plot")
        if step is None:
            print(f"{args.trace}: no events; skipped the timeline")
            return
        timeline_png = os.path.join(out_dir, f"{stem}_timeline_step{step}.png")
        plot_timeline(trace, step, timeline_png)
        print(timeline_png)
    except TraceError as e:
        sys.exit(f"plot_trace: {e}")


if __name__ == "__main__":
    main()
