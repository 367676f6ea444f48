#!/usr/bin/python3
"""CPU taken by each thread of the ranks of an MPI job on this machine (docs/simulator.md,
"Shared cores: waiting ranks").

Starts `mpirun -np N flowbench dist-train ...` (or any command after `--`), finds the ranks (the
children of mpirun), and reads /proc/<pid>/task/<tid>/schedstat (runtime) and .../status
(voluntary and involuntary context switches) of every thread at two instants, --from and --to
seconds after the start: both inside the steady part of the run. Prints, per thread name summed
over the ranks, the cores it took (CPU seconds per wall second) and its context switches per
second, and the total against the machine's cores. With --idle-ranks K, the last K ranks run
`--idle-cmd` instead (see mpi_wait_probe.cc's use in the docs).

    /usr/bin/python3 analysis/mpi_rank_cpu.py --ranks 4 --mode sync --steps 2000 --from 2 --to 6
"""
import argparse
import os
import subprocess
import time

def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                out.append(int(d))
        except OSError:
            continue
    return sorted(out)


def threads(pid):
    """{(pid, tid): (name, cpu_s, voluntary, involuntary)} of every thread of `pid`."""
    res = {}
    base = "/proc/%d/task" % pid
    try:
        tids = os.listdir(base)
    except OSError:
        return res
    for tid in tids:
        try:
            with open("%s/%s/stat" % (base, tid)) as f:
                text = f.read()
            name = text[text.index("(") + 1:text.rindex(")")]
            # schedstat's runtime is exact; stat's utime + stime are tick-sampled and miss
            # threads that run microseconds between sched_yield calls.
            with open("%s/%s/schedstat" % (base, tid)) as f:
                cpu = int(f.read().split()[0]) * 1e-9
            vol = inv = 0
            with open("%s/%s/status" % (base, tid)) as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches"):
                        vol = int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches"):
                        inv = int(line.split()[1])
            res[(pid, int(tid))] = (name, cpu, vol, inv)
        except (OSError, ValueError):
            continue
    return res


def snapshot(ranks):
    s = {}
    for r in ranks:
        s.update(threads(r))
    return s


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--flowbench", default="build/flowbench")
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--mode", default="sync")
    p.add_argument("--model", default="lenet")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--from", dest="t0", type=float, default=2.0)
    p.add_argument("--to", dest="t1", type=float, default=6.0)
    p.add_argument("--per-rank", action="store_true", help="a row per rank and thread name")
    p.add_argument("cmd", nargs="*", help="after --: the command each rank runs instead")
    args = p.parse_args()
    rank_cmd = args.cmd or [args.flowbench, "dist-train", "--model", args.model, "--mode",
                            args.mode, "--batch", "32", "--lr", "0.05", "--steps",
                            str(args.steps)]
    with open("/proc/loadavg") as f:
        load0 = f.read().split()[0]
    mpirun = subprocess.Popen(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np",
                               str(args.ranks)] + rank_cmd, stdout=subprocess.DEVNULL)
    start = time.time()
    time.sleep(args.t0)
    ranks = children(mpirun.pid)
    if len(ranks) != args.ranks:
        raise SystemExit("found %d ranks under mpirun %d at %.1f s, expected %d" % (
            len(ranks), mpirun.pid, args.t0, args.ranks))
    a, ta = snapshot(ranks), time.time()
    time.sleep(args.t1 - args.t0)
    b, tb = snapshot(ranks), time.time()
    still = mpirun.poll() is None
    mpirun.wait(timeout=600)
    with open("/proc/loadavg") as f:
        load1 = f.read().split()[0]
    wall = tb - ta
    by_name = {}
    for key, (name, cpu, vol, inv) in b.items():
        if key not in a:
            continue
        _, cpu0, vol0, inv0 = a[key]
        if args.per_rank:
            name = "rank %d %s" % (ranks.index(key[0]), name)
        row = by_name.setdefault(name, [0, 0.0, 0, 0])
        row[0] += 1
        row[1] += cpu - cpu0
        row[2] += vol - vol0
        row[3] += inv - inv0
    print("%d ranks (%s), %.2f s window, job still running at its end: %s, load %s -> %s" % (
        len(ranks), " ".join(rank_cmd[1:4]), wall, still, load0, load1))
    print("| thread | threads | cores taken | voluntary switches/s | involuntary switches/s |")
    print("|---|---|---|---|---|")
    total = 0.0
    for name, (n, cpu, vol, inv) in sorted(by_name.items(), key=lambda kv: -kv[1][1]):
        total += cpu
        print("| %s | %d | %.3f | %.0f | %.0f |" % (name, n, cpu / wall, vol / wall, inv / wall))
    print("total: %.3f cores of %d (elapsed %.1f s)" % (total / wall, os.cpu_count(),
                                                         time.time() - start))


if __name__ == "__main__":
    main()
