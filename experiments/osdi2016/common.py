"""Helpers shared by the experiments/osdi2016/*/run commands: flags, paths, subprocesses."""
import argparse
import csv
import os
import subprocess
import sys
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


class RunError(Exception):
    """A user-facing failure: the message names the command or file and what to do."""


def parse_args(description, here, extra=None):
    p = argparse.ArgumentParser(description=description)
    if extra:
        extra(p)
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes and few steps (CTest; < 60 s); outputs go to --out")
    p.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                   help="the CMake build directory with flowbench (default: build)")
    p.add_argument("--out", help="output directory (default: this experiment's results/ for a "
                                 "full run, results_quick/ with --quick)")
    args = p.parse_args()
    if args.out is None:
        args.out = os.path.join(here, "results_quick" if args.quick else "results")
    os.makedirs(args.out, exist_ok=True)
    return args


def binary(args, name):
    path = os.path.join(args.build_dir, name)
    if not os.access(path, os.X_OK):
        raise RunError(f"{path} not found: build it first (cmake --build {args.build_dir} "
                       f"--target {name})")
    return path


def run(cmd, what, timeout=None):
    """Runs cmd; returns its stdout. RunError with its stderr tail on failure."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO)
    except subprocess.TimeoutExpired:
        raise RunError(f"{what}: timed out after {timeout} s: {' '.join(cmd)}")
    if done.returncode != 0:
        raise RunError(f"{what} failed (exit {done.returncode}): {' '.join(cmd)}\n"
                       f"{done.stderr.strip()[-2000:]}")
    return done.stdout


def load_average():
    return "%.1f %.1f %.1f" % os.getloadavg()


def write_csv(path, rows, fields):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def network_note(bw, lat, msg_ns, host_bps):
    """The null step's calibration as its sim rows' note states it (parse_network_note reads it
    back): link bytes/s, latency s, ns per message received, host (de)serialisation bytes/s (0:
    none, then left out)."""
    host_part = (f"host {host_bps / 1e9:.3f} GB/s shared by send and receive, "
                 if host_bps > 0 else "")
    return (f"NIC {bw / 1e9:.3f} GB/s, latency {lat * 1e6:.0f} us, {host_part}"
            f"{msg_ns / 1e3:.1f} us per message")


def parse_network_note(note):
    """(link bytes/s, latency s, ns per message, host bytes/s) from a note written by
    network_note, or by session 18 (no host part: 0; no message part: 0). None when the note has
    no "NIC" calibration; ValueError when a part is malformed."""
    if "NIC " not in note:
        return None
    bw = float(note.split("NIC ")[1].split(" GB/s")[0]) * 1e9
    lat = float(note.split("latency ")[1].split(" us")[0]) * 1e-6
    msg = (float(note.split(", ")[-1].split(" us per message")[0]) * 1e3
           if " us per message" in note else 0.0)
    host = float(note.split("host ")[1].split(" GB/s")[0]) * 1e9 if "host " in note else 0.0
    return bw, lat, msg, host


def null_step_network(default_bandwidth, default_latency_s):
    """The paper cluster's network as the null step calibrated it: (link bytes/s per host,
    latency in s, handling per message received in ns, the hosts' (de)serialisation bytes/s
    shared by both directions (0: none), source), read from null_step/results/results.csv (its
    sim rows' note, parse_network_note); the defaults (no host costs) when that file has no
    calibration."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "null_step", "results",
                        "results.csv")
    if os.path.exists(path):
        for r in read_csv(path):
            net = parse_network_note(r["note"]) if r["kind"] == "sim" else None
            if net:
                return net + ("null-step calibration (../null_step/results/results.csv)",)
    return float(default_bandwidth), float(default_latency_s), 0.0, 0.0, "spec.yaml default"


def main_guard(fn):
    start = time.time()
    try:
        fn()
    except RunError as e:
        print(f"{os.path.basename(sys.argv[0])}: {e}", file=sys.stderr)
        sys.exit(1)
    print(f"done in {time.time() - start:.1f} s", file=sys.stderr)
