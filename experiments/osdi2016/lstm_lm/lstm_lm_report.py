"""Figure and report of ./run (OSDI 2016 section 6.4, Figure 9)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PAPER_PS = "PS 8 IvyBridge cores"  # the setting whose PS speed is the paper's servers' (./run)


def write_figure(path, sim, published, quick):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, softmax in zip(axes, ("full", "sampled")):
        for setting, style in (("measured", "-"), (PAPER_PS, ":"), ("PS calibrated", "--")):
            rows = [r for r in sim if r["softmax"] == softmax and r["setting"] == setting]
            for w in sorted({r["workers"] for r in rows}):
                pts = sorted((r["ps"], r["words_per_s"]) for r in rows if r["workers"] == w)
                ax.plot([p for p, _ in pts], [v for _, v in pts], marker="o", linestyle=style,
                        label=f"sim ({setting} PS), {w} workers")
        for (s, w, ps), v in published.items():
            if s == softmax:
                ax.plot([ps], [v], marker="*", markersize=14, linestyle="none", color="black",
                        label=f"paper (approx.), {w} workers")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("PS tasks")
        ax.set_title(f"{softmax} softmax")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    axes[0].set_ylabel("words / second")
    fig.suptitle("OSDI 2016 Fig. 9, LSTM-512-512, 40,000 words" + (" (--quick)" if quick else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _real_table(real):
    out = ["| softmax | workers | PS | words/step | real median step (s) | real words/s | "
           "sim words/s | error |", "|---|---|---|---|---|---|---|---|"]
    for r in real:
        miss = " **miss**" if abs(r["error"]) > 0.25 else ""
        out.append(f"| {r['softmax']} | {r['workers']} | {r['ps']} | {r['words_per_step']} | "
                   f"{r['median_step_s']} | {r['words_per_s']} | {r['sim_words_per_s']} | "
                   f"{r['error']:+.1%}{miss} |")
    return out


def _sim_table(sim):
    ps_list = sorted({r["ps"] for r in sim})
    out = ["| PS speed | softmax | workers | " + " | ".join(f"{p} PS" for p in ps_list) + " |",
           "|---|---|---|" + "---|" * len(ps_list)]
    for setting, softmax in (("measured", "full"), ("measured", "sampled"), (PAPER_PS, "full"),
                             ("PS calibrated", "full")):
        for w in sorted({r["workers"] for r in sim}):
            by_ps = {r["ps"]: r for r in sim if r["softmax"] == softmax and r["workers"] == w
                     and r["setting"] == setting}
            if not by_ps:
                continue
            cells = []
            for p in ps_list:
                r = by_ps.get(p)
                cell = f"{r['words_per_s']:,.0f}" if r else ""
                if r and r["published"] != "":
                    cell += f" (paper ~{r['published']:,.0f}, {r['paper_error']:+.0%})"
                cells.append(cell)
            out.append(f"| {setting} | {softmax} | {w} | " + " | ".join(cells) + " |")
    return out


def write_report(path, real, sim, costs, cfg, load, args):
    g = costs.groups
    lines = [
        "# OSDI 2016 section 6.4: LSTM-512-512 language model (Figure 9)", "",
        f"Command: `experiments/osdi2016/lstm_lm/run{' --quick' if args.quick else ''}"
        f"{' --sim-only ' + args.sim_only if getattr(args, 'sim_only', None) else ''}` "
        f"(--sim-only: the profile named and the real rows of the previous run kept). "
        f"Load average (1, 5, 15 min) before the profile, before the real runs, before the "
        f"validation and at the end: {' | '.join(load)}.", "",
        "## Profile (this machine, one thread, 40,000 words)", "",
        f"Largest profiled batch {costs.batch} x {cfg['model']['unroll']} = {costs.words} words "
        f"(load {costs.load:.1f}): worker forward {g['worker forward'] * 1e3:.1f} ms, worker "
        f"backward {g['worker backward'] * 1e3:.1f} ms, softmax {g['softmax'] * 1e3:.1f} ms "
        f"({costs.softmax_flops_per_s / 1e9:.2f} GFLOP/s, the paper-scale hosts' speed), Adam "
        f"{g.get('optimizer', 0) * 1e3:.1f} ms, dense embedding gradient "
        f"{g.get('dense embedding gradient', 0) * 1e3:.1f} ms; sampled softmax on the worker "
        f"{costs.sampled_s_per_word * 1e6:.1f} us per word.", "",
        "## Real runs and the simulator's replay of them", "",
        "`flowbench dist-train` under mpirun on this machine (sync, reduced vocabulary), and "
        "`flowbench sim` replaying each run's exported step graph on `sim-platform mpi-node` with "
        "`--cost-model profile:profile.h5`. Error = sim / real - 1 (target "
        f"{cfg['target_error']:.0%}).", ""] + _real_table(real) + [
        "", "## Paper scale (simulated): words/s", "",
        f"Coarse step (lm_step_graph.py), {cfg['paper']['batch_per_worker']} x "
        f"{cfg['model']['unroll']} words per worker step, mode {cfg['paper']['mode']}. "
        f"{sim[0]['note'] if sim else ''}. {PAPER_PS}: "
        f"{next((r['note'] for r in sim if r['setting'] == PAPER_PS), 'not run')}. "
        f"PS calibrated: "
        f"{next((r['note'] for r in sim if r['setting'] == 'PS calibrated'), 'not run')}.", ""] + \
        _sim_table(sim) + [""]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
