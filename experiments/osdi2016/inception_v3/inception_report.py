"""The figure and the markdown report of experiments/osdi2016/inception_v3/run."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


STYLES = {"GPU cost model": "s-", "calibrated": "o--"}


def write_figure(path, rows, pub, quick):
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    ax = axes[0]
    for mode, color in (("sync", "tab:blue"), ("async", "tab:orange")):
        for compute, style in STYLES.items():
            pts = [(r["workers"], r["images_per_s"]) for r in rows
                   if r["experiment"] == "throughput" and r["mode"] == mode
                   and r["compute"] == compute]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color,
                    label=f"simulated, {mode}, compute: {compute}")
        for p in pub:
            if p["experiment"] == "throughput" and p["mode"] == mode:
                ax.plot([int(p["workers"])], [float(p["value"])], "*", ms=14, color=color,
                        label=f"paper, {mode} (approx.)")
    ax.set_xlabel("workers")
    ax.set_ylabel("images/s")
    ax.set_title("Inception-v3 throughput, 17 PS" + (" [--quick]" if quick else ""), fontsize=10)
    ax.legend(fontsize=7)
    for compute, style in STYLES.items():
        bk = [r for r in rows if r["experiment"] == "backup" and r["compute"] == compute]
        axes[1].plot([r["backups"] for r in bk], [r["median_step_s"] for r in bk], style,
                     color="tab:green", label=f"simulated, compute: {compute}")
        axes[2].plot([r["backups"] for r in bk], [r["normalized_speedup"] for r in bk], style,
                     color="tab:green", label=f"simulated, compute: {compute}")
    for p in pub:
        if p["experiment"] == "backup":
            ax = axes[1] if p["unit"] == "s median step" else axes[2]
            ax.plot([int(p["backups"])], [float(p["value"])], "*", ms=14, color="tab:blue",
                    label="paper")
    axes[1].set_title("median step, 50 workers + backups", fontsize=10)
    axes[1].set_ylabel("s")
    axes[2].set_title("normalized speedup t(0)/t(b) x 50/(50+b)", fontsize=10)
    for ax in axes[1:]:
        ax.set_xlabel("backup workers")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def anchor_lines(anchor):
    """The report's section on the real anchor runs (anchor.py), misses included."""
    if not anchor:
        return ["## Real anchor on this machine", "", "Not run (`--no-anchor` without a previous "
                "anchor.csv).", ""]
    a = anchor[0]
    head = (f"`flowbench dist-train --model {a['model']}` under mpirun, {a['ps']} PS + "
            f"{a['workers']} workers, batch {a['batch']} per worker, {a['steps_per_run']} steps "
            f"per run (the first left out), {a['runs']} runs per mode alternating (median of "
            f"their medians); predictions from a one-process, one-thread profile at that batch "
            f"(one worker step alone: {1e3 * float(a['worker_step_alone_s']):.0f} ms) on "
            "`sim-platform mpi-node:...` (one host per rank sharing this machine's cores). "
            "Error = predicted / real - 1.")
    if a.get("kept"):
        head = f"Kept from {os.path.relpath(a['kept'])} (`--no-anchor`). " + head
    lines = ["## Real anchor on this machine", "", head, "",
             "| mode | backups | real step (s), runs | real images/s | full graph (s) | error | "
             "coarse step (s) | error | load |", "|---|---|---|---|---|---|---|---|---|"]
    for r in anchor:
        lines.append(f"| {r['mode']} | {r['backups']} | {r['real_step_s']} ({r['real_runs_s']}) "
                     f"| {r['real_images_per_s']} | {r['full_graph_step_s']} | "
                     f"{100 * float(r['full_graph_error']):+.1f}% | {r['coarse_step_s']} | "
                     f"{100 * float(r['coarse_error']):+.1f}% | {r['load']} |")
    return lines + ["", "The coarse step is the graph the paper-scale points simulate "
                    "(../coarse_step_graph.py: the layers round-robin on the PS tasks, the "
                    "worker's compute in layer order): its error here is what that abstraction "
                    "costs at this scale, on this machine's network (shared memory), not the "
                    "paper's.", ""]


def write_report(path, rows, cfg, info, args, anchor=()):
    v = cfg["variation"]
    tail = v["chen_tail"]
    lines = [
        "# OSDI 2016 Inception-v3 (section 6.3, Figure 8b/8c), simulated"
        + (" (--quick)" if args.quick else ""), "",
        f"Command: `experiments/osdi2016/inception_v3/run{' --quick' if args.quick else ''}`; spec: "
        "`spec.yaml`; published: `published.csv` (approximate readings of the plots from "
        "secondary summaries; the full text is not in the stored corpora).", "",
        "Setup and assumptions:", "",
        f"- Worker step compute on a K40: {info['t_c'] * 1e3:.0f} ms at batch "
        f"{cfg['batch_per_worker']} per worker ({info['flops'] / 1e12:.2f} TFLOP per "
        "forward+backward), from the GPU cost model with the efficiencies calibrated on AlexNet "
        "(Table 1) and the K40's specs (experiments/devices/k40.json). The per-worker batch is not "
        "in the paper (32 assumed, tensorflow/models' default per GPU).",
        f"- Parameters: {info['params'] / 1e6:.1f} MB (the model's {cfg['model']} trainable "
        f"variables), layer by layer round-robin over {cfg['ps']} PS tasks: shards "
        + ", ".join(f"{x / 1e6:.1f}" for x in info["shards"]) + " MB.",
        f"- Network: {info['bw'] / 1e9:.3f} GB/s full-duplex link per host, "
        f"{info['lat'] * 1e6:.0f} us of latency and {info.get('msg_ns', 0) / 1e3:.1f} us of "
        f"handling per message received"
        + (f", {info['host_bps'] / 1e9:.3f} GB/s of serialisation and deserialisation per host "
           f"on the same handler, which what a host sends and what it receives share"
           if info.get("host_bps", 0) > 0 else "")
        + f", one message at a time per host ({info['net_source']}); the paper's network is not "
        f"published.",
        f"- Start spread (assumed): replica r starts its first step r x S / workers late, S = "
        f"{v['start_spread_steps']} step of a worker alone ({info['spread_gpu']:.3f} s with the "
        f"GPU cost model's compute, {info['spread_cal']:.3f} s calibrated): asynchronous workers "
        "drift apart instead of sending and receiving at the same instants (`flowbench sim "
        "--start-spread`).",
        f"- Compute noise: each worker step's compute times 1 + E, E exponential of mean "
        f"M = {info['noise']:.4f} (`--compute-noise exp:M`, seed {v['seed']}): c M = "
        f"{info['mu']:.3f} s with c the calibrated compute, from Chen et al. 2016 "
        f"(arXiv:1604.00981: the {tail['workers'] - tail['backups']}th of {tail['workers']} "
        f"gradients within {tail['threshold_s']} s in {100 * tail['within_fraction']:.0f}% of "
        f"the steps), its median assumed to be the paper's {tail['median_s']} s; the model "
        f"predicts all {tail['workers']} within {tail['threshold_s']} s in "
        f"{100 * info['all_within']:.0f}% of the steps (Chen et al.: "
        f"{100 * tail['all_within_fraction']:.0f}%). Same M (relative) in both settings.",
        "- The step is the coarse graph of ../coarse_step_graph.py (a layer's weights with its "
        "bias and batch-norm vectors in one message each way, the worker's compute spread over "
        "the layers in layer order, forward then backward, each gradient sent when its layer is "
        "done), not the full Inception-v3 graph: "
        "replaying the full graph on 25+ replicas took more than 10 minutes per point. The "
        "real anchor below checks it against real runs at 1 PS + 3 workers.", "",
        f"- Worker compute, two settings: **GPU cost model** ({info['t_c'] * 1e3:.0f} ms, above) "
        f"and **calibrated** ({info['t_cal'] * 1e3:.0f} ms: the compute for which 50 workers + 4 "
        "backups take the paper's 1.93 s median step with the compute noise, solved with M in "
        f"{info['iterations']} iterations; that point is then a calibration, the others "
        "predictions).", "",
        "| compute | experiment | mode | workers | backups | median step (s) | images/s | "
        "normalized speedup | paper | error |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        err = f"{100 * r['error']:+.0f}%" if r.get("error", "") != "" else ""
        lines.append(f"| {r['compute']} | {r['experiment']} | {r['mode']} | {r['workers']} | "
                     f"{r['backups']} | "
                     f"{r['median_step_s']} | {r['images_per_s']} | "
                     f"{r.get('normalized_speedup', '')} | {r.get('published', '')} | {err} |")
    lines += ["", "The K40 compute from the GPU cost model is the Table 1 software (convnet-"
              "benchmarks TensorFlow, April 2016) scaled by specs; TensorFlow 0.8's Inception "
              "trainer on one K40 logged 3.378 s per batch of 32 (tensorflow/models research/"
              "inception README, with its input pipeline), several times slower than this "
              "estimate: where the simulated step is compute-bound it is too fast for that reason.",
              "", "![Inception-v3](inception_v3.png)", ""]
    lines += anchor_lines(list(anchor))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
