#!/usr/bin/python3
"""Hold-out validation of distributed predictions (issue 17, item 5; docs/simulator.md).

Profiles ONE process once (`flowbench profile --models lenet --batch-sizes 16,64 --threads 1`:
neither the distributed job nor its batch size is ever profiled), then for 2 and 4 MPI ranks and
every mode (sync, async and backup with one parameter server; allreduce with none) predicts the
median step with `flowbench sim --model lenet --batch B --cost-model profile:P,threads=1` on
`flowbench sim-platform mpi-node:...` (one host per rank, the ranks sharing this machine's cores,
shared-memory links) and measures it with `mpirun -np N flowbench dist-train` (the median of the
steps after --skip, as rank 0 reports them in --metrics-json `step_s`; the median of --repeats
runs). Prints a Markdown table with every case, misses included, and the 1-minute load average.
With --wait-core-weights W1,W2,.. each case is predicted once per weight of a waiting rank
(`sim-platform --wait-core-weight`, sim/core_sharing.h) against the same measurements: 0 is the
model without polling, the first weight is the one the summary line reports.

    /usr/bin/python3 analysis/sim_dist_holdout.py --flowbench build/flowbench \
        --profile out/one_process.h5 --record --csv out/dist_holdout.csv
"""
import argparse
import csv
import json
import os
import statistics
import tempfile

from sim_holdout import load_average, run  # this directory is on sys.path when run as a script

# (ranks, mode, dist-train flags, parameter servers, replicas, sim --mode)
CASES = [
    (2, "sync", [], 1, 1, "sync"),
    (2, "async", [], 1, 1, "async"),
    (2, "allreduce", [], 0, 2, "allreduce"),
    (4, "sync", [], 1, 3, "sync"),
    (4, "async", [], 1, 3, "async"),
    (4, "backup", ["--backups", "1"], 1, 3, "backup:1"),
    (4, "allreduce", [], 0, 4, "allreduce"),
]


def predict(args, ranks, ps, replicas, mode, tmp, weight=None):
    platform = os.path.join(tmp, "node.xml")
    jobs = ("ps=%d,worker=%d" % (ps, replicas)) if ps else "worker=%d" % replicas
    weight_flag = [] if weight is None else ["--wait-core-weight", str(weight)]
    run([args.flowbench, "sim-platform", "mpi-node:" + jobs, platform] + weight_flag)
    out = os.path.join(tmp, "sim.json")
    cmd = [args.flowbench, "sim", "--model", "lenet", "--batch", str(args.batch), "--platform",
           platform, "--ranks", str(replicas), "--mode", mode, "--cost-model",
           "profile:%s,threads=1" % args.profile, "--steps", "20", "--metrics-json", out]
    if ps:
        cmd += ["--ps", str(ps)]
    run(cmd)
    with open(out) as f:
        return json.load(f)["median_step_time_s"] * 1e3


def measure(args, ranks, mode, flags, tmp):
    out = os.path.join(tmp, "dist.json")
    load = load_average()
    run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), args.flowbench,
         "dist-train", "--model", "lenet", "--mode", mode, "--batch", str(args.batch), "--lr",
         "0.05", "--steps", str(args.steps + args.skip), "--metrics-json", out] + flags,
        timeout=300)
    with open(out) as f:
        steps = json.load(f)["step_s"][args.skip:]
    return statistics.median(steps) * 1e3, max(load, load_average())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--flowbench", default="build/flowbench")
    p.add_argument("--profile", required=True, help="profile file (written first with --record)")
    p.add_argument("--record", action="store_true", help="run flowbench profile first")
    p.add_argument("--batch", type=int, default=32, help="examples per replica (not profiled)")
    p.add_argument("--steps", type=int, default=100, help="measured steps per run (median)")
    p.add_argument("--skip", type=int, default=10, help="steps left out at the start")
    p.add_argument("--repeats", type=int, default=3, help="runs per case (median of medians)")
    p.add_argument("--csv", help="write the table as CSV")
    p.add_argument("--wait-core-weights", help="comma-separated weights of a waiting rank to "
                   "predict with (default: sim-platform's own)")
    p.add_argument("--cases", help="comma-separated RANKS:MODE to run (e.g. 4:sync,2:sync)")
    args = p.parse_args()
    if args.record:
        print(run([args.flowbench, "profile", "--out", args.profile, "--models", "lenet",
                   "--batch-sizes", "16,64", "--threads", "1"]))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        weights = ([float(w) for w in args.wait_core_weights.split(",")]
                   if args.wait_core_weights else [None])
        wanted = set(args.cases.split(",")) if args.cases else None
        for ranks, mode, flags, ps, replicas, sim_mode in CASES:
            if wanted is not None and "%d:%s" % (ranks, mode) not in wanted:
                continue
            preds = [predict(args, ranks, ps, replicas, sim_mode, tmp, w) for w in weights]
            runs = [measure(args, ranks, mode, flags, tmp) for _ in range(args.repeats)]
            measured = statistics.median(m for m, _ in runs)
            row = dict(ranks=ranks, mode=sim_mode, predicted_ms=preds[0], measured_ms=measured,
                       error=preds[0] / measured - 1,
                       runs_ms=" / ".join("%.2f" % m for m, _ in runs),
                       load=max(l for _, l in runs))
            for w, pred in zip(weights[1:], preds[1:]):
                row["predicted_w%g_ms" % w] = pred
                row["error_w%g" % w] = pred / measured - 1
            rows.append(row)
            print("%d ranks %s: predicted %s ms, measured %s ms, error %s, load %.1f" % (
                ranks, sim_mode, " / ".join("%.2f" % x for x in preds), row["runs_ms"],
                " / ".join("%+.1f%%" % (100 * (x / measured - 1)) for x in preds),
                row["load"]), flush=True)
    label = lambda w: "default weight" if w is None else "weight %g" % w  # noqa: E731
    print("\n| ranks | mode | measured median step (ms), runs | " +
          " | ".join("predicted, %s (ms) | error" % label(w) for w in weights) + " | load avg |")
    print("|---|---|---|" + "---|---|" * len(weights) + "---|")
    for r in rows:
        preds = [r["predicted_ms"]] + [r["predicted_w%g_ms" % w] for w in weights[1:]]
        print("| %d | %s | %s | %s | %.1f |" % (
            r["ranks"], r["mode"], r["runs_ms"],
            " | ".join("%.2f | %+.1f%%" % (x, 100 * (x / r["measured_ms"] - 1)) for x in preds),
            r["load"]))
    errors = sorted(abs(r["error"]) for r in rows)
    print("\nmedian |error| %.1f%%, max %.1f%% over %d cases" % (
        100 * statistics.median(errors), 100 * errors[-1], len(rows)))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
