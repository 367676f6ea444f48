#!/usr/bin/python3
"""Hold-out validation of the simulator's profile cost model (issue 17, docs/simulator.md).

Profiles this host once (`flowbench profile`, batches 16, 64, 256 by default), then for every
(model, batch, threads) predicts the median training step with `flowbench sim --cost-model
profile:P,threads=T` (the measured executor overheads of a schema-2 profile), with
`profile:P,threads=T,step-costs=off` (the fitted step correction alone, the model before them;
--no-fitted-column skips it) and with `--cost-model analytic` on the platform given, and measures it with
`flowbench benchmark` (same model builder, Adam, synthetic input, median of --steps steps; the
median of --repeats such runs). Prints
a Markdown table (every case, misses included) with the 1-minute load average next to each
measurement, and writes it as CSV.

    /usr/bin/python3 analysis/sim_holdout.py --flowbench build/flowbench \
        --profile profiles/this_host.h5 --record --calibrate out/calibrated.xml \
        --csv out/holdout.csv
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(cmd, timeout=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    if r.returncode != 0:
        sys.exit("command failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stdout[-2000:]))
    return r.stdout


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def predict(args, model, batch, cost_model, tmp):
    path = os.path.join(tmp, "sim.json")
    run([args.flowbench, "sim", "--model", model, "--batch", str(batch), "--platform",
         args.platform, "--cost-model", cost_model, "--metrics-json", path])
    with open(path) as f:
        return json.load(f)["median_step_time_s"] * 1e3


def measure(args, model, batch, threads, tmp):
    path = os.path.join(tmp, "bench.json")
    load = load_average()
    run([args.flowbench, "benchmark", "--model", model, "--batch-size", str(batch), "--threads",
         str(threads), "--optimizer", "adam", "--num-batches", str(args.steps),
         "--num-warmup-batches", str(args.warmup), "--metrics-json", path])
    with open(path) as f:
        return json.load(f)["ms_per_step_median"], max(load, load_average())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--flowbench", default="build/flowbench")
    p.add_argument("--profile", required=True, help="profile file (written first with --record)")
    p.add_argument("--record", action="store_true", help="run flowbench profile first")
    p.add_argument("--profile-batches", default="16,64,256")
    p.add_argument("--models", default="lenet,mlp")
    p.add_argument("--batches", default="16,32,64,128,256")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--steps", type=int, default=30, help="measured steps per case (median)")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps before them")
    p.add_argument("--profile-steps", type=int, default=20,
                   help="flowbench profile --steps (untimed steps: --profile-warmup)")
    p.add_argument("--profile-trace-steps", type=int, default=10)
    p.add_argument("--profile-warmup", type=int, default=5)
    p.add_argument("--repeats", type=int, default=2,
                   help="benchmark runs per case: the measurement is the median of their "
                        "medians, and how much they differ shows the machine's noise")
    p.add_argument("--platform", default="this_machine.xml", help="for the analytic column")
    p.add_argument("--calibrate", metavar="OUT_XML",
                   help="write `flowbench sim-platform profile:PROFILE,threads=T OUT_XML` "
                        "(T: --calibrate-threads) and use it for the analytic column instead "
                        "of --platform")
    p.add_argument("--calibrate-threads", type=int, default=1,
                   help="the thread count --calibrate fits (sim/platforms/this_machine.xml: 2)")
    p.add_argument("--csv", help="write the table as CSV")
    p.add_argument("--no-fitted-column", action="store_true",
                   help="skip the step-costs=off prediction (profiles without it: schema 1)")
    args = p.parse_args()
    if args.record:
        print(run([args.flowbench, "profile", "--out", args.profile, "--models", args.models,
                   "--batch-sizes", args.profile_batches, "--threads", args.threads,
                   "--steps", str(args.profile_steps),
                   "--trace-steps", str(args.profile_trace_steps),
                   "--warmup-steps", str(args.profile_warmup)]))
    if args.calibrate:
        print(run([args.flowbench, "sim-platform",
                   "profile:%s,threads=%d" % (args.profile, args.calibrate_threads),
                   args.calibrate]))
        args.platform = args.calibrate
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            for threads in [int(t) for t in args.threads.split(",")]:
                for batch in [int(b) for b in args.batches.split(",")]:
                    pred = predict(args, model, batch, "profile:%s,threads=%d" % (args.profile,
                                                                                threads), tmp)
                    fitted = None if args.no_fitted_column else predict(
                        args, model, batch,
                        "profile:%s,threads=%d,step-costs=off" % (args.profile, threads), tmp)
                    analytic = predict(args, model, batch, "analytic", tmp)
                    runs = [measure(args, model, batch, threads, tmp)
                            for _ in range(args.repeats)]
                    medians = [m for m, _ in runs]
                    measured = statistics.median(medians)
                    load = max(l for _, l in runs)
                    spread = max(medians) / min(medians) - 1
                    rows.append(dict(model=model, batch=batch, threads=threads,
                                     predicted_ms=pred, measured_ms=measured,
                                     error=pred / measured - 1,
                                     fitted_ms=fitted if fitted else float("nan"),
                                     fitted_error=fitted / measured - 1 if fitted else float("nan"),
                                     analytic_ms=analytic,
                                     analytic_error=analytic / measured - 1, load=load,
                                     repeat_spread=spread))
                    r = rows[-1]
                    print("%s b%d t%d: predicted %.2f ms, measured %.2f ms, error %+.1f%% "
                          "(fitted only %.2f ms, %+.1f%%; analytic %.2f ms, %+.1f%%), load %.1f, "
                          "repeats differ by %.0f%%" % (
                              model, batch, threads, pred, measured, 100 * r["error"],
                              r["fitted_ms"], 100 * r["fitted_error"], analytic,
                              100 * r["analytic_error"], load, 100 * spread), flush=True)
    print("\n| model | batch | threads | predicted (ms) | measured median (ms) | error | "
          "fitted only (ms) | fitted-only error | analytic (ms) | analytic error | load avg | "
          "repeats differ |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        held = "" if str(r["batch"]) in args.profile_batches.split(",") else " (held out)"
        print("| %s | %d%s | %d | %.2f | %.2f | %+.1f%% | %.2f | %+.1f%% | %.2f | %+.1f%% | %.1f "
              "| %.0f%% |" % (
                  r["model"], r["batch"], held, r["threads"], r["predicted_ms"], r["measured_ms"],
                  100 * r["error"], r["fitted_ms"], 100 * r["fitted_error"], r["analytic_ms"],
                  100 * r["analytic_error"], r["load"], 100 * r["repeat_spread"]))
    errors = [abs(r["error"]) for r in rows]
    held_out = [abs(r["error"]) for r in rows
                if str(r["batch"]) not in args.profile_batches.split(",")]
    print("\nprofile: median |error| %.1f%%, max %.1f%% over %d cases (held-out batches only: "
          "median %.1f%%, max %.1f%%)" % (100 * statistics.median(errors), 100 * max(errors),
                                          len(errors), 100 * statistics.median(held_out or [0]),
                                          100 * max(held_out or [0])))
    if not args.no_fitted_column:
        f = [abs(r["fitted_error"]) for r in rows]
        print("fitted step correction only (step-costs=off): median |error| %.1f%%, max %.1f%%" % (
            100 * statistics.median(f), 100 * max(f)))
    for threads in sorted({r["threads"] for r in rows}):  # the platform fits one thread count
        a = [abs(r["analytic_error"]) for r in rows if r["threads"] == threads]
        print("analytic (%s), %d thread(s): median |error| %.1f%%, max %.1f%%" % (
            args.platform, threads, 100 * statistics.median(a), 100 * max(a)))
    if args.csv:
        os.makedirs(os.path.dirname(args.csv) or ".", exist_ok=True)
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
