#!/usr/bin/python3
"""The median step of a `dist-train --trace` run (the span of each step's events, the last two
thirds of the steps) and the kernel time per step of its workers (ranks 1.., compute events
other than Send/Recv), for benchmarks/cluster/layers.sh (docs/cluster.md).
Usage: trace_step.py TRACE.h5   (Debian's python3: h5py, numpy)"""
import sys

import h5py
import numpy as np


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with h5py.File(sys.argv[1], "r") as f:
        e = f["/events"][:]
        data, off = f["/strings/data"][:].tobytes(), f["/strings/offsets"][:]
    steps = np.unique(e["step"])
    steps = steps[len(steps) // 3:]
    if len(steps) == 0:
        sys.exit(f"{sys.argv[1]}: no traced steps")
    spans = [(e["end_ns"][e["step"] == s].max() - e["start_ns"][e["step"] == s].min()) / 1e6
             for s in steps]
    op = lambda i: data[off[i]:off[i + 1]].decode()
    c = e[(e["kind"] == 0) & np.isin(e["step"], steps) & (e["rank"] > 0)]
    keep = np.array([not op(o).startswith(("_Send", "_Recv", "_Host")) for o in c["op_type"]],
                    dtype=bool)
    workers = max(1, len(np.unique(c["rank"])))
    kernels = (c["end_ns"] - c["start_ns"])[keep].sum() / len(steps) / workers / 1e6
    print(f"median step {np.median(spans):.1f} ms, a worker's kernels {kernels:.1f} ms per step")


if __name__ == "__main__":
    main()
