"""The real anchor of section 6.3 on this machine: Inception-v3 trained by `flowbench dist-train`
under mpirun with 1 PS task and 3 workers at a small batch (spec.yaml `anchor`), synchronous,
asynchronous and with one backup worker, next to two predictions of the same configurations:

  full graph  `flowbench sim --model M --ranks W --ps P --mode X` with a one-process profile of
              the model on this machine (`flowbench profile`, one thread) on the platform of that
              MPI job here (`sim-platform mpi-node:...`: one host per rank, the ranks sharing this
              machine's cores, shared-memory links);
  coarse step the step the paper-scale points simulate (../coarse_step_graph.py: the layers
              round-robin on the PS tasks, the worker's compute in layer order) with the
              worker's compute set to the profile's one-process step, on the same platform.

Neither prediction sees a distributed run: the profile is one process at the anchor's batch
(the distributed configuration, modes, core sharing and transfers are predicted). Images/s =
examples per step (dist-train's count: every replica's, the applied ones' with backups) over the
median step (the first step of each run left out; the median over `repeats` runs, the modes
alternating).
"""
import json
import os
import statistics
import xml.etree.ElementTree as ET

import coarse_step_graph
import common

FIELDS = ["model", "mode", "ps", "workers", "backups", "batch", "steps_per_run", "runs",
          "examples_per_step", "real_step_s", "real_runs_s", "real_images_per_s",
          "worker_step_alone_s", "full_graph_step_s", "full_graph_error", "coarse_step_s",
          "coarse_error", "load"]
SIM_MODE = {"sync": "sync", "async": "async", "backup": "backup:{b}"}


REQUIRED = ("model", "ps", "workers", "batch", "backups", "modes", "steps", "repeats", "lr",
            "sim_steps")


def settings(cfg, quick):
    """spec.yaml's `anchor` (its `quick` entries over it with --quick). RunError naming the key
    when one is missing or of the wrong kind."""
    if not isinstance(cfg.get("anchor"), dict):
        raise common.RunError("spec.yaml has no `anchor` mapping")
    a = dict(cfg["anchor"])
    a.update(a.pop("quick", {}) if quick else {})
    a.pop("quick", None)
    missing = [k for k in REQUIRED if k not in a]
    if missing:
        raise common.RunError(f"spec.yaml anchor: missing {missing}")
    for k in ("ps", "workers", "batch", "steps", "repeats", "sim_steps"):
        if not isinstance(a[k], int) or a[k] < 1:
            raise common.RunError(f"spec.yaml anchor.{k} must be an integer >= 1, got {a[k]!r}")
    if not isinstance(a["modes"], list):
        raise common.RunError(f"spec.yaml anchor.modes must be a list, got {a['modes']!r}")
    unknown = set(a["modes"]) - set(SIM_MODE)
    if unknown:
        raise common.RunError(f"spec.yaml anchor.modes: unknown {sorted(unknown)}, expected "
                              f"some of {sorted(SIM_MODE)}")
    return a


def profile(args, a, out_dir):
    """A one-process, one-thread profile of the model at the anchor's batch sizes, or the kept
    profile spec.yaml names (anchor.profile, relative to the repository: --quick, where
    `flowbench profile`'s executor and transfer probes alone take a minute under ASan)."""
    if a.get("profile"):
        path = os.path.join(common.REPO, a["profile"])
        if not os.path.exists(path):
            raise common.RunError(f"spec.yaml anchor.profile: '{path}' does not exist")
        return path
    path = os.path.join(out_dir, "profile.h5")
    steps = a.get("profile_steps", [20, 5, 3])
    common.run([common.binary(args, "flowbench"), "profile", "--out", path, "--models",
                a["model"], "--batch-sizes", ",".join(map(str, a["profile_batches"])),
                "--threads", "1", "--steps", str(steps[0]), "--trace-steps", str(steps[1]),
                "--warmup-steps", str(steps[2])], f"flowbench profile of {a['model']}",
               timeout=1800)
    return path


def profiled_step_s(path, model, batch):
    """The profile's median one-process step (s) of `model` at `batch`."""
    import h5py  # only the full anchor needs it
    with h5py.File(path, "r") as f:
        for s in f["/steps"][:]:
            if s["model"].decode() == model and int(s["batch"]) == batch:
                return float(s["median_step_ns"]) * 1e-9
    raise common.RunError(f"profile '{path}' has no step of {model} at batch {batch}: "
                          f"anchor.profile_batches must include anchor.batch")


def mpirun(args, a, mode, metrics):
    ranks = a["ps"] + a["workers"]
    cmd = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none", "-np",
           str(ranks), common.binary(args, "flowbench"), "dist-train", "--model", a["model"],
           "--cluster", f"ps={a['ps']},worker={a['workers']}", "--mode", mode,
           "--batch", str(a["batch"]), "--steps", str(a["steps"]), "--lr", str(a["lr"]),
           "--metrics-json", metrics]
    if mode == "backup":
        cmd += ["--backups", str(a["backups"])]
    common.run(cmd, f"flowbench dist-train --model {a['model']} --mode {mode} ({ranks} ranks)",
               timeout=900)
    with open(metrics) as f:
        m = json.load(f)
    return statistics.median(m["step_s"][1:] or m["step_s"]), m["examples_per_step"]


def run_real(args, a, out_dir):
    """{mode: (median of the runs' median steps, the runs' medians, examples per step, load)}."""
    runs = {mode: [] for mode in a["modes"]}
    examples, loads = {}, []
    for rep in range(a["repeats"]):
        for mode in a["modes"]:
            step, examples[mode] = mpirun(args, a, mode,
                                          os.path.join(out_dir, f"{mode}_{rep}.json"))
            runs[mode].append(step)
            loads.append(os.getloadavg()[0])
    load = f"{min(loads):.1f}-{max(loads):.1f}"
    return {m: (statistics.median(r), r, examples[m], load) for m, r in runs.items()}


def platform(args, a, out_dir):
    path = os.path.join(out_dir, "mpi_node.xml")
    common.run([common.binary(args, "flowbench"), "sim-platform",
                f"mpi-node:ps={a['ps']},worker={a['workers']}", path], "flowbench sim-platform")
    return path


def host_speed(platform_path):
    """FLOP/s of the platform's worker hosts (they are all alike in an mpi-node platform)."""
    for host in ET.parse(platform_path).getroot().iter("host"):
        if host.get("id", "").startswith("worker"):
            try:
                return float(host.get("speed", "").rstrip("f"))
            except ValueError:
                raise common.RunError(f"{platform_path}: host '{host.get('id')}' has speed "
                                      f"'{host.get('speed')}', not FLOP/s like '4e10f'")
    raise common.RunError(f"{platform_path}: no worker host")


def simulate(args, a, mode, plat, graph_flags, metrics):
    sim_mode = SIM_MODE[mode].format(b=a["backups"])
    cmd = [common.binary(args, "flowbench"), "sim", "--platform", plat, "--ranks",
           str(a["workers"]), "--ps", str(a["ps"]), "--mode", sim_mode, "--steps",
           str(a["sim_steps"]), "--metrics-json", metrics] + graph_flags
    common.run(cmd, f"flowbench sim {' '.join(graph_flags[:2])} --mode {sim_mode}", timeout=900)
    with open(metrics) as f:
        return json.load(f)["median_step_time_s"]


def run_anchor(args, cfg, variables_of):
    """The anchor's rows (FIELDS), also written to OUT/anchor.csv. `variables_of(model, batch)`:
    the model's variable bytes in creation order (../coarse_step_graph.variable_bytes)."""
    a = settings(cfg, args.quick)
    variables = variables_of(a["model"], a["batch"])
    out_dir = os.path.join(args.out, "anchor")
    os.makedirs(out_dir, exist_ok=True)
    prof = profile(args, a, out_dir)
    real = run_real(args, a, out_dir)
    plat = platform(args, a, out_dir)
    coarse = os.path.join(out_dir, "coarse_step.json")
    t_worker = profiled_step_s(prof, a["model"], a["batch"])
    coarse_step_graph.write_step_graph(coarse, variables, a["ps"], t_worker * host_speed(plat))
    rows = []
    for mode in a["modes"]:
        step, runs, examples, load = real[mode]
        full = simulate(args, a, mode, plat,
                        ["--model", a["model"], "--batch", str(a["batch"]), "--cost-model",
                         f"profile:{prof},threads=1"], os.path.join(out_dir, f"sim_{mode}.json"))
        crs = simulate(args, a, mode, plat, ["--graph", coarse],
                       os.path.join(out_dir, f"coarse_{mode}.json"))
        rows.append({"model": a["model"], "mode": mode, "ps": a["ps"], "workers": a["workers"],
                     "backups": a["backups"] if mode == "backup" else 0, "batch": a["batch"],
                     "steps_per_run": a["steps"], "runs": a["repeats"],
                     "worker_step_alone_s": round(t_worker, 4),
                     "examples_per_step": examples, "real_step_s": round(step, 4),
                     "real_runs_s": " ".join(f"{r:.3f}" for r in runs),
                     "real_images_per_s": round(examples / step, 2),
                     "full_graph_step_s": round(full, 4),
                     "full_graph_error": round(full / step - 1, 3),
                     "coarse_step_s": round(crs, 4), "coarse_error": round(crs / step - 1, 3),
                     "load": load})
    common.write_csv(os.path.join(args.out, "anchor.csv"), rows, FIELDS)
    return rows
