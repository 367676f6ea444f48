#!/usr/bin/env python3
"""The scalar null step on the emulated cluster predicted with the control plane and a per-message
cost (issue 18, docs/cluster.md "Scalar null step with the control plane"), from the measurements
of `validate.py null-step` (its results.csv: every link, worker count and repeat).

  experiments/cluster/null_step_message_cost.py RESULTS.csv [--calibrate-link 100mbit:50us]
      [--build-dir build] [--out DIR]

The per-message costs of our runtime on these hosts (sim/message_cost.h) are calibrated on ONE
link, --calibrate-link (default: the first, the shortest delay measured, where the step is mostly
the runtime's fixed costs), from its curve against the number of workers: with the control plane
a step of W workers is the simulated step without costs + 2 wake-ups (message_latency_ns: the
worker gets the run request and the parameters together, the master the W updates and W done
replies) + (2 + 2W) handlings (message_overhead_ns), so a straight line through the medians of
W = 1.. gives the overhead (half its slope) and the latency (from its intercept). Every other
link is a prediction of `flowbench sim --control-plane on --message-overhead-ns S
--message-latency-ns L` on `flowbench sim-platform emulated:N:RATE:DELAY`.
Prints a markdown table (median of the repeats against the old and the new prediction) and writes
DIR/predictions.csv.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    if done.returncode != 0:
        sys.exit(f"failed (exit {done.returncode}): {' '.join(cmd)}\n{done.stderr[-2000:]}")


def predict_ms(args, workers, link, message_ns, latency_ns=0.0):
    rate, delay = link.split(":")
    hosts = workers + 1
    graph = os.path.join(args.out, f"null_scalar_{workers}.json")
    plat = os.path.join(args.out, f"emulated_{hosts}_{rate}_{delay}.xml")
    metrics = os.path.join(args.out, "metrics.json")
    if not os.path.exists(graph):
        run([sys.executable, os.path.join(REPO, "benchmarks/cluster/null_step_graph.py"),
             str(workers), graph, "1"])
    if not os.path.exists(plat):
        run([os.path.join(args.build_dir, "flowbench"), "sim-platform",
             f"emulated:{hosts}:{rate}:{delay}", plat])
    run([os.path.join(args.build_dir, "flowbench"), "sim", "--graph", graph, "--platform", plat,
         "--steps", "10", "--control-plane", "on", "--message-overhead-ns", f"{message_ns:.0f}",
         "--message-latency-ns", f"{latency_ns:.0f}", "--metrics-json", metrics])
    with open(metrics) as f:
        return json.load(f)["median_step_time_s"] * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results")
    p.add_argument("--calibrate-link")
    p.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    p.add_argument("--out")
    p.add_argument("--tolerance", type=float, default=0.10)
    args = p.parse_args()
    args.out = args.out or os.path.join(os.path.dirname(os.path.abspath(args.results)), "msgcost")
    os.makedirs(args.out, exist_ok=True)
    with open(args.results) as f:
        rows = [r for r in csv.DictReader(f) if r["case"] == "scalar null step"]
    cases = {}
    for r in rows:
        c = cases.setdefault((r["link"], int(r["workers"])), {"ms": [], "load": [], "old": 0})
        c["ms"].append(float(r["measured_ms"]))
        c["load"].append(r["load"])
        c["old"] = float(r["predicted_ms"])
    links = sorted({k[0] for k in cases}, key=lambda l: [k[0] for k in cases].index(l))
    cal = args.calibrate_link or links[0]
    ws = sorted(w for (l, w) in cases if l == cal)
    meds = [statistics.median(cases[(cal, w)]["ms"]) for w in ws]
    mw, mt = statistics.mean(ws), statistics.mean(meds)
    slope = (sum((w - mw) * (t - mt) for w, t in zip(ws, meds)) /
             max(sum((w - mw) ** 2 for w in ws), 1e-12))
    intercept = mt - slope * mw  # at W = 0
    base = predict_ms(args, 1, cal, 0)
    message_ns = max(slope / 2, 0) * 1e6
    latency_ns = max((intercept - base - 2 * slope / 2) / 2, 0) * 1e6
    print(f"calibrated on {cal}: medians {', '.join(f'{t:.2f}' for t in meds)} ms for W = "
          f"{ws[0]}..{ws[-1]}, line {intercept:.2f} + {slope:.2f} W ms, {base:.2f} ms without "
          f"costs: message_overhead_ns = {message_ns:.0f}, message_latency_ns = {latency_ns:.0f}\n")
    print("| link | workers | measured ms (repeats) | old prediction | error | new prediction "
          "| error | | load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    out, hits, total = [], 0, 0
    for (link, w), c in sorted(cases.items(), key=lambda kv: (links.index(kv[0][0]), kv[0][1])):
        med = statistics.median(c["ms"])
        new = predict_ms(args, w, link, message_ns, latency_ns)
        role = "calibration" if link == cal else "prediction"
        err, old_err = new / med - 1, c["old"] / med - 1
        hit = abs(err) <= args.tolerance
        if role == "prediction":
            total += 1
            hits += hit
        mark = role if role == "calibration" else ("hit" if hit else "**miss**")
        print(f"| {link} | {w} | {' / '.join(f'{x:.2f}' for x in c['ms'])} | {c['old']:.2f} | "
              f"{100 * old_err:+.1f}% | {new:.2f} | {100 * err:+.1f}% | {mark} | "
              f"{', '.join(c['load'])} |")
        out.append({"link": link, "workers": w, "measured_median_ms": round(med, 3),
                    "old_predicted_ms": c["old"], "predicted_ms": round(new, 3),
                    "error": round(err, 4), "role": role, "message_overhead_ns": round(message_ns),
                    "message_latency_ns": round(latency_ns)})
    print(f"\n{hits} of {total} predictions within {100 * args.tolerance:.0f}%")
    with open(os.path.join(args.out, "predictions.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0]))
        w.writeheader()
        w.writerows(out)


if __name__ == "__main__":
    main()
