#!/usr/bin/env python3
"""Network-bound validation of the simulator on the emulated cluster (issue 18, docs/cluster.md):
the same job measured across hosts in network namespaces (scripts/cluster) and predicted by
`flowbench sim` on the matching `flowbench sim-platform emulated:N:RATE:DELAY` platform.

  experiments/cluster/validate.py null-step --hosts 4 --links 1gbit:1ms,1gbit:5ms [--models scalar]
  experiments/cluster/validate.py dist-train --hosts 4 --links 100mbit:1ms [--model lenet]
  experiments/cluster/validate.py allreduce --hosts 8 --links 100mbit:1ms --model mlp --steps 5
  experiments/cluster/validate.py bandwidth --hosts 2 --links 1gbit:50us,10gbit:50us

null-step   flowbench-mpi-null-step (rank 0 the ps and master, ranks 1.. workers; every worker
            count 1..hosts-1 in one run) against `flowbench sim` of the same exchange
            (benchmarks/cluster/null_step_graph.py) with the analytic cost model.
dist-train  `flowbench dist-train --mode sync --cluster ps=1,worker=hosts-1`, traced. The costs
            come from the same command run on ONE host (mpirun over shared memory, no emulated
            network, so the trace holds the kernels and the runtime's own overheads with the
            same number of ranks sharing the CPU); its exported graph is replayed on the emulated
            platform (`--cost-model measured:ONE_HOST.h5`). The measured step is the median step
            of the run on the emulated hosts (its own trace). --one-host-transport tcp: the
            one-host run over TCP on the loopback device instead of shared memory (its trace then
            holds the CPU Open MPI's TCP transport takes, as on the emulated hosts).
            --profile P: also predicts each case from a ONE-PROCESS profile (`flowbench profile
            --models MODEL --batch-sizes 16,64 --threads 1`, recorded into P first unless it
            exists) on `sim-platform emulated:... --cores nproc` (the hosts sharing this
            machine's cores) with each --wait-core-weights weight of a waiting rank
            (sim/core_sharing.h): columns predicted_w<W>_ms and error_w<W> in results.csv and
            one line per weight in report.md, against the same measurements.
allreduce   `flowbench dist-train --mode allreduce --cluster worker=hosts` (one fused
            MPI_Iallreduce of the gradients per step; per-step time from two run lengths)
            against `flowbench sim --mode allreduce --ranks hosts` with the costs of a
            single-process trace (`flowbench train --threads 1`).
bandwidth   flowbench-mpi-bench between the first two hosts (--bytes messages, plain MPI and
            flowbench's Send/Recv) against the configured rate (issue 18's check: within 20%)
            and against the link bandwidth of the emulated platform (the TCP goodput the
            simulator assumes, read from the XML `flowbench sim-platform` writes).

Every link configuration RATE:DELAY in --links is measured in turn (`scripts/cluster set` changes
the links live), --repeats times, alternating, so that the drift of a shared machine hits all of
them alike. Each row carries the load average around its run. A case hits when the median of its
repeats is within --tolerance (10%, docs/simulator.md and issue 18) of the prediction.
Every external command has a timeout (null-step: scaled with the bytes the run moves).
Writes OUT/results.csv and OUT/report.md (default OUT: build/cluster_validation/MODE-HOSTS).
Needs root and network namespaces; always takes its cluster (prefix "cv", or $FB_CLUSTER_PREFIX)
down again. Exit status: 0, or 1 on an error or, with --fail-on-miss, when a case misses.
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CLUSTER = os.path.join(REPO, "scripts", "cluster")
PREFIX = os.environ.get("FB_CLUSTER_PREFIX", "cv")  # scripts/cluster --prefix
FIELDS = ["case", "link", "workers", "repeat", "measured_ms", "predicted_ms", "error", "load"]


class RunError(Exception):
    """A failure to report: names the command and its output's tail."""


def run(cmd, what, timeout=600, env=None):
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO,
                              env=env)
    except subprocess.TimeoutExpired:
        raise RunError(f"{what}: timed out after {timeout} s: {' '.join(cmd)}")
    if done.returncode != 0:
        raise RunError(f"{what} failed (exit {done.returncode}): {' '.join(cmd)}\n"
                       f"{(done.stdout + done.stderr).strip()[-2000:]}")
    return done.stdout


def load():
    return "%.1f" % os.getloadavg()[0]


def cluster(*args, timeout=120):
    env = dict(os.environ, FB_CLUSTER_PREFIX=PREFIX)
    return run([CLUSTER] + list(args), "scripts/cluster " + " ".join(args), timeout, env)


def cluster_mpirun(cmd, timeout, np=None):
    """`scripts/cluster mpirun [--np NP] -- CMD`, retried once: on this shared machine mpirun now
    and then waits forever for an ORTE daemon that never reported back (seen once in ~40
    launches)."""
    head = ["mpirun"] + (["--np", str(np)] if np else []) + ["--"]
    try:
        return cluster(*head, *cmd, timeout=timeout)
    except RunError as e:
        print(f"retrying once after: {str(e)[:300]}", file=sys.stderr, flush=True)
        return cluster(*head, *cmd, timeout=timeout)


def parse_link(text):
    rate, sep, delay = text.partition(":")
    if not sep or not rate or not delay:
        raise RunError(f"--links: expected RATE:DELAY (e.g. 100mbit:1ms), got '{text}'")
    rate_bytes_per_s(rate)  # refuses a rate scripts/cluster would refuse, before any run
    return rate, delay


def rate_bytes_per_s(rate):
    """tc's units, as scripts/cluster passes them on: 1gbit = 1e9 bit/s = 125e6 B/s."""
    m = re.fullmatch(r"([0-9.]+)([kmg]?)bit", rate)
    if not m:
        raise RunError(f"--links: expected a rate like 100mbit or 1gbit, got '{rate}'")
    return float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)] / 8


class Sim:
    def __init__(self, args):
        self.flowbench = os.path.join(args.build_dir, "flowbench")
        self.out = args.out

    def platform(self, hosts, link):
        rate, delay = link
        path = os.path.join(self.out, f"emulated_{hosts}_{rate}_{delay}.xml")
        # --cores 0: a whole CPU per host. These cases take their costs from a trace of the same
        # job on one host, whose kernel times already hold the sharing of the machine's cores.
        run([self.flowbench, "sim-platform", f"emulated:{hosts}:{rate}:{delay}", path,
             "--cores", "0"], "flowbench sim-platform")
        return path

    def median_ms(self, extra, tag):
        metrics = os.path.join(self.out, f"sim_{tag}.json")
        run([self.flowbench, "sim", "--steps", "10", "--metrics-json", metrics] + extra,
            f"flowbench sim ({tag})")
        with open(metrics) as f:
            m = json.load(f)
        return m["median_step_time_s"] * 1e3, m


# ---- null step ------------------------------------------------------------------------------

def null_step_timeout(args, link):
    """Seconds to allow one flowbench-mpi-null-step run: the dense model moves 2 x W x 4 x dense
    bytes through the ps's cable per step, for W = 1..hosts-1, in steps + 1 flowbench steps and
    twice steps + 1 hand-written MPI steps (100 MB at 1 Gbit/s on 5 hosts: ~200 s of link time);
    twice that, plus three minutes for start-up and the scalar model's steps."""
    per_step = sum(2 * w * 4 * args.dense for w in range(1, args.hosts)) if "dense" in \
        args.models.split(",") else 0
    link_s = 3 * (args.steps + 1) * per_step / (0.9 * rate_bytes_per_s(link[0]))
    return int(180 + 2 * link_s)


def null_step_measure(args, tool, link):
    text = cluster_mpirun([tool, "--steps", str(args.steps), "--models", args.models,
                           "--dense", str(args.dense)], timeout=null_step_timeout(args, link))
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 7 and f[0] in ("scalar", "dense"):
            out[(f[0], int(f[1]))] = (float(f[2]), float(f[3]), float(f[5]))
    if not out:
        raise RunError(f"flowbench-mpi-null-step printed no result table:\n{text[-1000:]}")
    return out


def null_step_predict(args, sim, link):
    pred = {}
    for model in args.models.split(","):
        floats = 1 if model == "scalar" else args.dense
        for w in range(1, args.hosts):
            graph = os.path.join(args.out, f"null_{model}_{w}.json")
            run([sys.executable, os.path.join(REPO, "benchmarks/cluster/null_step_graph.py"),
                 str(w), graph, str(floats)], "null_step_graph.py")
            plat = sim.platform(w + 1, link)
            pred[(model, w)], _ = sim.median_ms(["--graph", graph, "--platform", plat],
                                                f"null_{model}_{w}_{link[0]}_{link[1]}")
    return pred


def null_step(args, links):
    tool = os.path.join(args.build_dir, "flowbench-mpi-null-step")
    sim = Sim(args)
    preds = {link: null_step_predict(args, sim, link) for link in links}
    rows = []
    for rep in range(args.repeats):
        for link in links:
            cluster("set", "--bandwidth", link[0], "--latency", link[1])
            before = load()
            got = null_step_measure(args, tool, link)
            where = f"{before}-{load()}"
            for (model, w), (fb, raw, raw_ctl) in sorted(got.items()):
                p = preds[link][(model, w)]
                rows.append({"case": f"{model} null step", "link": ":".join(link), "workers": w,
                             "repeat": rep, "measured_ms": fb, "predicted_ms": round(p, 3),
                             "error": round(p / fb - 1, 4), "load": where,
                             "raw_ms": raw, "raw_run_done_ms": raw_ctl})
                print(f"{model} {':'.join(link)} W={w} rep {rep}: flowbench {fb:.2f} ms (raw MPI "
                      f"{raw:.2f}, with run/done {raw_ctl:.2f}), predicted {p:.2f} ms, load {where}",
                      flush=True)
    return rows


# ---- dist-train -----------------------------------------------------------------------------

MPIRUN_ONE_HOST = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]
# --one-host-transport tcp: the one-host run's ranks talk over TCP on the loopback device, as the
# emulated hosts' ranks do over their links, so that its trace holds the CPU that Open MPI's TCP
# transport (socket copies, polling) takes from the kernels on the shared cores.
ONE_HOST_TRANSPORT = {"shm": [],
                      "tcp": ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca",
                              "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo"]}
FEED_SHAPES = {"lenet": {"images": [-1, 28, 28, 1], "labels": [-1]},
               "mlp": {"images": [-1, 28, 28, 1], "labels": [-1]},
               "alexnet": {"images": [-1, 227, 227, 3], "labels": [-1]}}


def feeds_as_placeholders(graph_path, model):
    """The exported graph's _Feed nodes (rank 0's batches, shape unknown to the cost model) as
    Placeholders of the model's input shapes, so that `flowbench sim --batch B` counts the bytes
    each worker's batch puts on the parameter server's cable (docs/cluster.md)."""
    with open(graph_path) as f:
        g = json.load(f)
    for n in g["nodes"]:
        if n["op"] != "_Feed":
            continue
        kind = "labels" if "/labels" in n["name"] else "images"
        n["op"] = "Placeholder"
        n["attrs"] = {"dtype": n["attrs"]["T"], "shape": {"shape": FEED_SHAPES[model][kind]}}
    with open(graph_path, "w") as f:
        json.dump(g, f)


def dist_train_cmd(args, trace, graph=None):
    cmd = [os.path.join(args.build_dir, "flowbench"), "dist-train", "--model", args.model,
           "--cluster", f"ps=1,worker={args.hosts - 1}", "--mode", "sync", "--steps",
           str(args.steps), "--batch", str(args.batch), "--lr", "0.05", "--trace", trace]
    return cmd + (["--export-graph", graph] if graph else [])


def profile_predictions(args, sim, link):
    """{weight: median step ms} of the sync job on the emulated platform with the hosts sharing
    this machine's cores, from the one-process profile args.profile (dist-train --profile)."""
    out = {}
    for w in args.wait_core_weights:
        plat = os.path.join(args.out, f"emulated_shared_{args.hosts}_{link[0]}_{link[1]}_{w}.xml")
        run([sim.flowbench, "sim-platform", f"emulated:{args.hosts}:{link[0]}:{link[1]}", plat,
             "--cores", "nproc", "--wait-core-weight", str(w)], "flowbench sim-platform")
        out[w], _ = sim.median_ms(
            ["--model", args.model, "--batch", str(args.batch), "--platform", plat, "--ps", "1",
             "--ranks", str(args.hosts - 1), "--mode", "sync", "--cost-model",
             f"profile:{args.profile},threads=1"], f"profile_{link[0]}_{link[1]}_{w}")
    return out


def dist_train(args, links):
    sim = Sim(args)
    rows = []
    profiled = {}
    if args.profile:
        if not os.path.exists(args.profile):
            run([sim.flowbench, "profile", "--out", args.profile, "--models", args.model,
                 "--batch-sizes", "16,64", "--threads", "1"], "flowbench profile", timeout=600)
        profiled = {link: profile_predictions(args, sim, link) for link in links}
    for rep in range(args.repeats):
        for link in links:
            tag = f"{args.model}_{link[0]}_{link[1]}_{rep}"
            one = os.path.join(args.out, f"one_host_{tag}.h5")
            emu = os.path.join(args.out, f"emulated_{tag}.h5")
            graph = os.path.join(args.out, f"graph_{tag}.json")
            before = load()
            run(MPIRUN_ONE_HOST + ONE_HOST_TRANSPORT[args.one_host_transport]
                + ["-np", str(args.hosts)] + dist_train_cmd(args, one, graph),
                "dist-train on one host", timeout=600)
            cluster("set", "--bandwidth", link[0], "--latency", link[1])
            cluster_mpirun(dist_train_cmd(args, emu), timeout=120 + 5 * args.steps)
            where = f"{before}-{load()}"
            feeds_as_placeholders(graph, args.model)
            plat = sim.platform(args.hosts, link)
            common = ["--graph", graph, "--platform", plat, "--batch", str(args.batch)]
            pred, pm = sim.median_ms(common + ["--cost-model", "measured:" + one], "pred_" + tag)
            one_host = pm["validation"]["measured_median_step_time_s"]  # the one-host run's step
            # The emulated run's own trace: its median step (and, for reference, its replay).
            own, m = sim.median_ms(common + ["--cost-model", "measured:" + emu], "own_" + tag)
            measured = m["validation"]["measured_median_step_time_s"] * 1e3
            rows.append({"case": f"{args.model} sync", "link": ":".join(link),
                         "workers": args.hosts - 1, "repeat": rep, "measured_ms": round(measured, 3),
                         "predicted_ms": round(pred, 3), "error": round(pred / measured - 1, 4),
                         "load": where, "one_host_ms": round(one_host * 1e3, 3),
                         "own_trace_replay_ms": round(own, 3)})
            for w, p in profiled.get(link, {}).items():
                rows[-1][f"predicted_w{w:g}_ms"] = round(p, 3)
                rows[-1][f"error_w{w:g}"] = round(p / measured - 1, 4)
            print(f"{args.model} {':'.join(link)} rep {rep}: measured {measured:.2f} ms, predicted "
                  f"{pred:.2f} ms ({100 * (pred / measured - 1):+.1f}%), one host "
                  f"{one_host * 1e3:.2f} ms, load {where}", flush=True)
    return rows


# ---- allreduce ------------------------------------------------------------------------------

def allreduce_wall_s(args, steps, tag):
    metrics = os.path.join(args.out, f"allreduce_{tag}_{steps}.json")
    cmd = [os.path.join(args.build_dir, "flowbench"), "dist-train", "--model", args.model,
           "--cluster", f"worker={args.hosts}", "--mode", "allreduce", "--steps", str(steps),
           "--batch", str(args.batch), "--lr", "0.05", "--metrics-json", metrics]
    cluster_mpirun(cmd, timeout=120 + 5 * steps)
    with open(metrics) as f:
        return json.load(f)["wall_s"]


def allreduce(args, links):
    """dist-train --mode allreduce on every host (dist-train does not time allreduce steps: the
    step is (wall(3 x S) - wall(S)) / (2 x S)) against `flowbench sim --mode allreduce` with the
    costs of a single-process trace (`flowbench train`, one thread)."""
    sim = Sim(args)
    trace = os.path.join(args.out, f"single_{args.model}.h5")
    run([sim.flowbench, "train", "--model", args.model, "--batch", str(args.batch), "--threads",
         "1", "--max-steps", "60", "--trace", trace, "--trace-steps", "40"], "flowbench train")
    preds = {}
    for link in links:
        plat = os.path.join(args.out, f"emulated_ar_{args.hosts}_{link[0]}_{link[1]}.xml")
        run([sim.flowbench, "sim-platform",
             f"emulated:{args.hosts}:{link[0]}:{link[1]}:star:worker={args.hosts}", plat],
            "flowbench sim-platform")
        preds[link], m = sim.median_ms(
            ["--model", args.model, "--batch", str(args.batch), "--platform", plat, "--mode",
             "allreduce", "--ranks", str(args.hosts), "--cost-model", "measured:" + trace],
            f"allreduce_{link[0]}_{link[1]}")
        print(f"predicted {preds[link]:.2f} ms ({m.get('allreduce_algorithm')})", flush=True)
    rows = []
    for rep in range(args.repeats):
        for link in links:
            cluster("set", "--bandwidth", link[0], "--latency", link[1])
            tag = f"{link[0]}_{link[1]}_{rep}"
            before = load()
            short = allreduce_wall_s(args, args.steps, tag)
            long = allreduce_wall_s(args, 3 * args.steps, tag)
            where = f"{before}-{load()}"
            measured = (long - short) / (2 * args.steps) * 1e3
            p = preds[link]
            rows.append({"case": f"{args.model} allreduce", "link": ":".join(link),
                         "workers": args.hosts, "repeat": rep, "measured_ms": round(measured, 3),
                         "predicted_ms": round(p, 3), "error": round(p / measured - 1, 4),
                         "load": where})
            print(f"{args.model} allreduce {':'.join(link)} rep {rep}: measured {measured:.2f} ms, "
                  f"predicted {p:.2f} ms, load {where}", flush=True)
    return rows


# ---- bandwidth ------------------------------------------------------------------------------

def platform_link_bytes_per_s(path):
    """The bandwidth of the first host cable of a `flowbench sim-platform emulated:...` XML (the
    TCP goodput the simulator assumes), in bytes per second."""
    with open(path) as f:
        text = f.read()
    m = re.search(r'<link [^>]*bandwidth="([0-9.eE+-]+)([KMG]?)Bps"', text)
    if not m:
        raise RunError(f"{path}: no <link ... bandwidth=\"...Bps\"> in the emulated platform")
    return float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]


def bandwidth_measure(args, link):
    """MB/s (1e6 bytes) of --bytes messages from host 0 to host 1: plain MPI and flowbench."""
    cmd = [os.path.join(args.build_dir, "flowbench-mpi-bench"), "--min-bytes", str(args.bytes),
           "--max-bytes", str(args.bytes), "--iters", "8", "--rounds", "3"]
    # 3 loops x 3 rounds + warm-ups of 8 messages: ~100 x --bytes; at 20% of the rate, twice.
    timeout = int(120 + 2 * 100 * args.bytes / (0.2 * rate_bytes_per_s(link[0])))
    text = cluster_mpirun(cmd, timeout=timeout, np=2)
    for line in text.splitlines():
        f = line.split()
        if len(f) == 7 and f[0] == str(args.bytes):
            return {"mpi": float(f[2]), "flowbench": float(f[4])}
    raise RunError(f"flowbench-mpi-bench printed no {args.bytes}-byte row:\n{text[-1000:]}")


def bandwidth(args, links):
    sim = Sim(args)
    plat = {link: platform_link_bytes_per_s(sim.platform(2, link)) / 1e6 for link in links}
    rows = []
    for rep in range(args.repeats):
        for link in links:
            cluster("set", "--bandwidth", link[0], "--latency", link[1])
            before = load()
            got = bandwidth_measure(args, link)
            where = f"{before}-{load()}"
            conf = rate_bytes_per_s(link[0]) / 1e6
            for loop, mbs in got.items():
                rows.append({"case": f"{loop} bandwidth", "link": ":".join(link), "repeat": rep,
                             "measured_MBps": mbs, "configured_MBps": conf,
                             "platform_MBps": round(plat[link], 2), "load": where})
            print(f"{':'.join(link)} rep {rep}: MPI {got['mpi']:.1f} MB/s, flowbench "
                  f"{got['flowbench']:.1f} MB/s (configured {conf:.1f}, platform "
                  f"{plat[link]:.1f}), load {where}", flush=True)
    return rows


def report_bandwidth(args, rows):
    """Issue 18's check (the median within 20% of the configured rate) and the error of the
    platform's goodput against the median (a hit within --tolerance). Returns the misses of the
    20% check."""
    path = os.path.join(args.out, "results.csv")
    fields = ["case", "link", "repeat", "measured_MBps", "configured_MBps", "platform_MBps", "load"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    lines = [f"`{' '.join(sys.argv)}` ({args.bytes}-byte messages, host 0 to host 1)", "",
             "| loop | link | MB/s (repeats) | median | of configured | within 20% | platform "
             "MB/s | platform error | load average |", "|---|---|---|---|---|---|---|---|---|"]
    keys = []
    for r in rows:
        if (r["case"], r["link"]) not in keys:
            keys.append((r["case"], r["link"]))
    misses = 0
    for k in keys:
        rs = [r for r in rows if (r["case"], r["link"]) == k]
        med = statistics.median(r["measured_MBps"] for r in rs)
        frac = med / rs[0]["configured_MBps"]
        ok = 0.8 <= frac <= 1.2
        misses += not ok
        err = rs[0]["platform_MBps"] / med - 1
        lines.append(f"| {k[0]} | {k[1]} | " + " / ".join("%.1f" % r["measured_MBps"] for r in rs)
                     + f" | {med:.1f} | {100 * frac:.1f}% | {'yes' if ok else '**no**'} | "
                     + f"{rs[0]['platform_MBps']:.1f} | {100 * err:+.1f}% "
                     + f"({'hit' if abs(err) <= args.tolerance else '**miss**'}) | "
                     + ", ".join(r["load"] for r in rs) + " |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write(text)
    print(text + f"{len(keys) - misses} of {len(keys)} within 20% of the configured rate; "
          f"wrote {path}")
    return misses


# ---- report ---------------------------------------------------------------------------------

def report(args, rows, links):
    path = os.path.join(args.out, "results.csv")
    extra = sorted({k for r in rows for k in r} - set(FIELDS))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS + extra)
        w.writeheader()
        w.writerows(rows)
    lines = [f"`{' '.join(sys.argv)}`", "",
             "| case | link | workers | measured ms (repeats) | predicted ms | error of the "
             "median | hit (±%d%%) | load average |" % round(100 * args.tolerance),
             "|---|---|---|---|---|---|---|---|"]
    keys = []
    for r in rows:
        k = (r["case"], r["link"], r["workers"])
        if k not in keys:
            keys.append(k)
    misses = 0
    for k in keys:
        rs = [r for r in rows if (r["case"], r["link"], r["workers"]) == k]
        meas = statistics.median(r["measured_ms"] for r in rs)
        pred = statistics.median(r["predicted_ms"] for r in rs)
        err = pred / meas - 1
        hit = abs(err) <= args.tolerance
        misses += not hit
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | "
                     + " / ".join("%.2f" % r["measured_ms"] for r in rs)
                     + f" | {pred:.2f} | {100 * err:+.1f}% | {'hit' if hit else '**miss**'} | "
                     + ", ".join(r["load"] for r in rs) + " |")
    for k in keys:  # dist-train --profile: the same measurements against the profile's predictions
        rs = [r for r in rows if (r["case"], r["link"], r["workers"]) == k]
        meas = statistics.median(r["measured_ms"] for r in rs)
        for col in sorted(c for c in rs[0] if c.startswith("predicted_w")):
            pred = statistics.median(r[col] for r in rs)
            lines.append(f"\n{k[0]} {k[1]}, from the one-process profile, hosts sharing the cores, "
                         f"waiting weight {col[len('predicted_w'):-3]}: predicted {pred:.2f} ms, "
                         f"measured {meas:.2f} ms, {100 * (pred / meas - 1):+.1f}%")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write(text)
    print(text + f"{len(keys) - misses} of {len(keys)} cases within {100 * args.tolerance:.0f}%; "
          f"wrote {path}")
    return misses


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=["null-step", "dist-train", "allreduce", "bandwidth"])
    p.add_argument("--hosts", type=int, default=4, help="emulated hosts = MPI ranks")
    p.add_argument("--links", default="1gbit:1ms", help="comma-separated RATE:DELAY")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--models", default="scalar", help="null-step: scalar,dense")
    p.add_argument("--dense", type=int, default=1048576, help="null-step: dense model floats")
    p.add_argument("--model", default="lenet", choices=sorted(FEED_SHAPES))
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--one-host-transport", choices=sorted(ONE_HOST_TRANSPORT), default="shm",
                   help="dist-train: the one-host run's MPI transport (shm, or tcp over lo)")
    p.add_argument("--profile", help="dist-train: one-process profile to predict from as well "
                   "(recorded first if missing)")
    p.add_argument("--wait-core-weights", default="1,0",
                   help="dist-train --profile: weights of a waiting rank (comma-separated)")
    p.add_argument("--bytes", type=int, default=8388608, help="bandwidth: message size")
    p.add_argument("--tolerance", type=float, default=0.10)
    p.add_argument("--fail-on-miss", action="store_true", help="exit 1 when a case misses")
    p.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    p.add_argument("--out")
    args = p.parse_args()
    args.build_dir = os.path.abspath(args.build_dir)
    args.wait_core_weights = [float(w) for w in args.wait_core_weights.split(",")]
    if args.profile:
        args.profile = os.path.abspath(args.profile)
    args.out = os.path.abspath(args.out or os.path.join(
        args.build_dir, "cluster_validation", f"{args.mode}-{args.hosts}"))
    os.makedirs(args.out, exist_ok=True)
    status = 0
    try:
        links = [parse_link(t) for t in args.links.split(",")]
        if args.hosts < 2:
            raise RunError(f"--hosts: {args.mode} needs at least 2 hosts, got {args.hosts}")
        print(f"load average at the start: {'%.1f %.1f %.1f' % os.getloadavg()}", flush=True)
        cluster("up", str(args.hosts), "--bandwidth", links[0][0], "--latency", links[0][1])
        rows = {"null-step": null_step, "dist-train": dist_train, "allreduce": allreduce,
                "bandwidth": bandwidth}[args.mode](args, links)
        misses = (report_bandwidth(args, rows) if args.mode == "bandwidth"
                  else report(args, rows, links))
        if misses and args.fail_on_miss:
            status = 1
    except RunError as e:
        print(f"experiments/cluster/validate.py: {e}", file=sys.stderr)
        return 1
    finally:
        try:
            cluster("down")
        except RunError as e:
            print(f"experiments/cluster/validate.py: {e}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
