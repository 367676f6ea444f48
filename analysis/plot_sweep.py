#!/usr/bin/python3
"""Figures from a `flowbench sweep` results table (docs/sweeps.md).

    plot_sweep.py RESULTS.h5 --x AXIS --y METRIC [--hue AXIS] [--facet AXIS]
        lines of METRIC's mean over AXIS with error bars (one standard deviation over the
        repetitions and over any setting not named), one line per --hue value, one panel per
        --facet value; a text axis is drawn as categories
    plot_sweep.py RESULTS.h5 --x AXIS --y AXIS2 --z METRIC [--facet AXIS]
        heat map of METRIC's mean over two axes
    plot_sweep.py RESULTS.h5 --pareto METRIC1 METRIC2 [--hue AXIS]
        every point's means, with the Pareto front (both metrics minimised)
    plot_sweep.py RESULTS.h5 --predicted-vs-measured [--sim-metric M] [--real-metric M]
        predicted (simulated runs) against measured (real runs of the same point) step time,
        log-log, with y = x and the band of the median relative error; Kendall's tau in the title

RESULTS is results.h5 (h5py, Debian python3-h5py) or its CSV export (flowbench sweep export).
Only successful runs (status "ok") are plotted; --where NAME=VALUE keeps rows with that setting.
A metric is a column of the table ("median_step_time_s", "devices.peak_bytes.max"); a name
colliding with a setting or provenance column is stored as "metric.NAME", which is tried too.
Writes --out (default: RESULTS's folder, <figure kind>.png).
"""
import argparse
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def read_results(path):
    """The results table as a DataFrame (strings decoded)."""
    if path.endswith(".csv"):
        return pd.read_csv(path, keep_default_na=True)
    import h5py

    with h5py.File(path, "r") as f:
        if f.attrs.get("schema", b"") not in (b"flowbench-sweep", "flowbench-sweep"):
            sys.exit(f"{path}: not a flowbench sweep results file (schema attribute)")
        table = f["results"][()]
    df = pd.DataFrame(table)
    for col in df.columns:
        if df[col].dtype.kind in "SO" and len(df) and isinstance(df[col].iloc[0], bytes):
            df[col] = df[col].str.decode("utf-8", errors="replace")
    return df


def column(df, name, axis=False):
    """The column of a metric (NAME, else metric.NAME) or, with axis, of a setting (setting.NAME
    first: a spec's `mode` axis is setting.mode, the provenance column mode is sim or real)."""
    order = ("setting." + name, name) if axis else (name, "metric." + name, "setting." + name)
    for candidate in order:
        if candidate in df.columns:
            return candidate
    sys.exit(f"no column '{name}'; columns: {', '.join(df.columns)}")


def seconds_per_unit(metric):
    if metric.endswith("_ns"):
        return 1e-9
    if metric.endswith("_us"):
        return 1e-6
    if metric.endswith("_ms") or metric.startswith("ms_"):
        return 1e-3
    return 1.0


def short(value):
    """A file path setting (a platform, a device config) shown by its file name; 4.0 as 4."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value)
    if "/" in text:
        text = os.path.basename(text)
    for ext in (".xml", ".json", ".yaml"):
        if text.endswith(ext):
            return text[: -len(ext)]
    return text


def ordered(values):
    """Unique values, numbers ascending, text in order of appearance."""
    uniq = list(dict.fromkeys(values))
    try:
        return sorted(uniq, key=float)
    except (TypeError, ValueError):
        return uniq


def panels(df, facet):
    if not facet:
        return [(None, df)]
    col = column(df, facet, axis=True)
    return [(v, df[df[col] == v]) for v in ordered(df[col].tolist())]


def figure(n):
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 4 * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def lines(df, args):
    x, y = column(df, args.x, axis=True), column(df, args.y)
    fig, axes = figure(len(panels(df, args.facet)))
    for ax, (fv, part) in zip(axes, panels(df, args.facet)):
        xs = ordered(part[x].tolist())
        numeric = pd.api.types.is_numeric_dtype(part[x])
        hues = [(None, part)]
        if args.hue:
            hc = column(df, args.hue, axis=True)
            hues = [(h, part[part[hc] == h]) for h in ordered(part[hc].tolist())]
        for h, sub in hues:
            stats = sub.groupby(x)[y].agg(["mean", "std"]).reindex(xs).dropna(subset=["mean"])
            pos = stats.index if numeric else [xs.index(v) for v in stats.index]
            ax.errorbar(pos, stats["mean"], yerr=stats["std"].fillna(0), marker="o", capsize=3,
                        label=None if h is None else f"{args.hue}={short(h)}")
        if not numeric:
            ax.set_xticks(range(len(xs)))
            ax.set_xticklabels([short(v) for v in xs], rotation=30, ha="right")
        elif len(xs) > 2 and min(xs) > 0 and max(xs) / min(xs) >= 100:
            ax.set_xscale("log")
        if args.logy:
            ax.set_yscale("log")
        ax.set_xlabel(args.x)
        ax.set_ylabel(args.y)
        if fv is not None:
            ax.set_title(f"{args.facet}={short(fv)}")
        if args.hue:
            ax.legend(fontsize="x-small")
        ax.grid(alpha=0.3)
    return fig


def heatmap(df, args):
    x, y, z = column(df, args.x, True), column(df, args.y, True), column(df, args.z)
    fig, axes = figure(len(panels(df, args.facet)))
    for ax, (fv, part) in zip(axes, panels(df, args.facet)):
        grid = part.groupby([y, x])[z].mean().unstack(x)
        grid = grid.reindex(index=ordered(grid.index.tolist()), columns=ordered(grid.columns.tolist()))
        im = ax.imshow(grid.values, aspect="auto", origin="lower", cmap="viridis")
        ax.set_xticks(range(len(grid.columns)))
        ax.set_xticklabels([short(v) for v in grid.columns], rotation=30, ha="right")
        ax.set_yticks(range(len(grid.index)))
        ax.set_yticklabels([short(v) for v in grid.index])
        for (i, j), v in np.ndenumerate(grid.values):
            if not np.isnan(v):
                ax.text(j, i, f"{v:.3g}", ha="center", va="center", fontsize=7, color="w")
        ax.set_xlabel(args.x)
        ax.set_ylabel(args.y)
        ax.set_title(args.z if fv is None else f"{args.facet}={short(fv)}", fontsize="medium")
        fig.colorbar(im, ax=ax)
    if args.facet:
        fig.suptitle(f"{args.z}: mean over the other settings")
    return fig


def pareto_front(points):
    """Indices of the points no other point beats in both coordinates (both minimised)."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1]))
    front, best = [], math.inf
    for i in order:
        if points[i][1] < best:
            front.append(i)
            best = points[i][1]
    return front


def pareto(df, args):
    m1, m2 = column(df, args.pareto[0]), column(df, args.pareto[1])
    keys = ["point"] + ([column(df, args.hue, True)] if args.hue else [])
    means = df.groupby(keys)[[m1, m2]].mean().reset_index()
    means = means.dropna(subset=[m1, m2])
    fig, (ax,) = figure(1)
    groups = [(None, means)] if not args.hue else list(means.groupby(column(df, args.hue, True)))
    for h, sub in groups:
        ax.scatter(sub[m1], sub[m2], s=18, alpha=0.7, label=None if h is None else f"{args.hue}={short(h)}")
    pts = list(zip(means[m1], means[m2]))
    front = pareto_front(pts)
    ax.plot([pts[i][0] for i in front], [pts[i][1] for i in front], "k-", drawstyle="steps-post",
            label="Pareto front")
    ax.set_xlabel(args.pareto[0])
    ax.set_ylabel(args.pareto[1])
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return fig


def kendall_tau(x, y):
    c = d = tx = ty = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                c += 1
            else:
                d += 1
    denom = math.sqrt((c + d + tx) * (c + d + ty))
    return (c - d) / denom if denom else 0.0


DEFAULT_STEP_METRIC = {"sim": "median_step_time_s", "place": "predicted_step_ns", "train": "ms_per_step_median"}


def predicted_vs_measured(df, args):
    sim, real = df[df["mode"] == "sim"], df[df["mode"] == "real"]
    if sim.empty or real.empty:
        sys.exit("predicted vs measured needs simulated and real runs (mode both, or --validate K)")
    sm = args.sim_metric or DEFAULT_STEP_METRIC.get(sim["command"].iloc[0])
    rm = args.real_metric or DEFAULT_STEP_METRIC.get(real["command"].iloc[0])
    if not sm or not rm:
        sys.exit("give --sim-metric and --real-metric")
    p = sim.groupby("point")[column(df, sm)].mean() * seconds_per_unit(sm)
    m = real.groupby("point")[column(df, rm)].mean() * seconds_per_unit(rm)
    both = pd.concat([p.rename("predicted"), m.rename("measured")], axis=1).dropna()
    if both.empty:
        sys.exit("no point has both a successful simulated and a successful real run")
    err = (both["predicted"] / both["measured"] - 1).abs()
    band = args.band if args.band is not None else float(err.median())
    tau = kendall_tau(both["predicted"].tolist(), both["measured"].tolist())
    fig, (ax,) = figure(1)
    lo = min(both.min()) / 1.5
    hi = max(both.max()) * 1.5
    xs = np.geomspace(lo, hi, 50)
    ax.plot(xs, xs, "k-", lw=1, label="predicted = measured")
    ax.fill_between(xs, xs * (1 - band), xs * (1 + band), color="grey", alpha=0.25,
                    label=f"±{100 * band:.0f} %")
    ax.scatter(both["measured"], both["predicted"], zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel(f"measured step time (s): {rm}")
    ax.set_ylabel(f"predicted step time (s): {sm}")
    ax.set_title(f"{len(both)} points, median |error| {100 * err.median():.0f} %, Kendall tau {tau:.2f}")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3, which="both")
    return fig


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="results.h5 of a sweep, or its CSV export")
    ap.add_argument("--x")
    ap.add_argument("--y")
    ap.add_argument("--z", help="metric of a heat map over --x and --y")
    ap.add_argument("--hue")
    ap.add_argument("--facet")
    ap.add_argument("--pareto", nargs=2, metavar=("METRIC1", "METRIC2"))
    ap.add_argument("--predicted-vs-measured", action="store_true")
    ap.add_argument("--sim-metric")
    ap.add_argument("--real-metric")
    ap.add_argument("--logy", action="store_true", help="logarithmic y axis (lines)")
    ap.add_argument("--band", type=float, help="relative error band (default: the median error)")
    ap.add_argument("--where", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--out", help="PNG to write")
    args = ap.parse_args(argv)
    df = read_results(args.results)
    df = df[df["status"] == "ok"]
    for w in args.where:
        name, _, value = w.partition("=")
        col = column(df, name, axis=True)
        df = df[df[col].astype(str) == value] if df[col].dtype.kind not in "fi" else df[df[col] == float(value)]
    if df.empty:
        sys.exit("no successful runs to plot")
    if args.predicted_vs_measured:
        fig, kind = predicted_vs_measured(df, args), "predicted_vs_measured"
    elif args.pareto:
        fig, kind = pareto(df, args), "pareto"
    elif args.x and args.y and args.z:
        fig, kind = heatmap(df, args), "heatmap"
    elif args.x and args.y:
        fig, kind = lines(df, args), "lines"
    else:
        ap.error("give --x and --y (with --z for a heat map), --pareto M1 M2 or --predicted-vs-measured")
    out = args.out or os.path.join(os.path.dirname(os.path.abspath(args.results)), kind + ".png")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
