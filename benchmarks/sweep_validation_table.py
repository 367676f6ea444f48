#!/usr/bin/python3
"""Per-point table of a `flowbench sweep --validate` run (docs/sweeps.md): for each configuration
that ran for real, the simulated step, the measured median step of every repetition, the error of
the prediction against the median of the repetitions, and Kendall's tau between the predicted and
measured orders (ties count as neither concordant nor discordant, tau-a over all pairs).
Usage: benchmarks/sweep_validation_table.py SWEEP_OUT_DIR"""
import json
import statistics
import sys


def label(settings):
    """The settings that vary between points of lenet_real.yaml- and lenet_placement.yaml-like
    sweeps, as text: placer (with its seed for random), devices, passes, compression."""
    s = dict(settings)
    parts = []
    if "placer" in s:
        seed = s.get("placer-seed")
        parts.append(s["placer"] + (f" seed {seed}" if s["placer"] == "random" and seed else ""))
    for k in ("real.devices", "passes"):
        if k in s:
            parts.append(s[k])
    if "compression" in s:
        parts.append(f"compression {s['compression']}")
    return ", ".join(parts)


def main(out):
    sim, real, labels = {}, {}, {}
    for line in open(f"{out}/journal.rank0.jsonl"):
        j = json.loads(line)
        m = j["metrics"]
        labels[j["point"]] = label(j["settings"])
        if j["command"] == "sim":
            sim[j["point"]] = m.get("median_step_time_s")
        else:
            real.setdefault(j["point"], []).append(m.get("ms_per_step_median"))
    rows = []
    for point, measured in sorted(real.items()):
        pred_ms = sim[point] * 1e3
        med = statistics.median(x for x in measured if x is not None)
        rows.append((labels[point], pred_ms, measured, med, pred_ms / med - 1))
    print("| configuration | predicted (ms) | measured median step (ms), repetitions | error |")
    print("|---|---|---|---|")
    for point, pred, measured, med, err in rows:
        reps = " / ".join("failed" if x is None else f"{x:.2f}" for x in measured)
        print(f"| {point} | {pred:.2f} | {reps} | {100 * err:+.1f}% |")
    errs = sorted(abs(r[4]) for r in rows)
    conc = disc = ties = 0
    for a in range(len(rows)):
        for b in range(a + 1, len(rows)):
            dp = rows[a][1] - rows[b][1]
            dm = rows[a][3] - rows[b][3]
            if dp * dm > 0:
                conc += 1
            elif dp * dm < 0:
                disc += 1
            else:
                ties += 1
    pairs = conc + disc + ties
    print(f"\n{len(rows)} points: median |error| {100 * statistics.median(errs):.1f}%, max "
          f"{100 * errs[-1]:.1f}%; Kendall tau-a {(conc - disc) / pairs:+.2f} ({conc} concordant, "
          f"{disc} discordant, {ties} tied of {pairs} pairs; ordered alike: "
          f"{100 * conc / max(1, conc + disc):.0f}% of the untied pairs)")


if __name__ == "__main__":
    main(sys.argv[1])
