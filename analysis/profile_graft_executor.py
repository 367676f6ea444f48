#!/usr/bin/python3
"""Grafts the schema-2 executor overheads of one profile onto a schema-1 profile (issue 17).

For a before/after comparison on old data (docs/simulator.md, "Executor overheads, measured
instead of fitted"): writes OUT, a schema-2 profile holding OLD's points and steps, each step row
given the node and hand-off counts of the same (model, batch, threads) row of DONOR, and DONOR's
/executor table. The overheads are DONOR's, measured at DONOR's time, not OLD's: a counterfactual,
to be labelled as such.

    /usr/bin/python3 analysis/profile_graft_executor.py OLD.h5 DONOR.h5 OUT.h5
"""
import sys

import h5py
import numpy as np


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    old_path, donor_path, out_path = sys.argv[1:4]
    with h5py.File(old_path, "r") as old, h5py.File(donor_path, "r") as donor, \
            h5py.File(out_path, "w") as out:
        if int(donor.attrs["schema_version"]) < 2:
            sys.exit("%s: schema_version %d, expected a schema-2 donor" % (
                donor_path, donor.attrs["schema_version"]))
        for k, v in old.attrs.items():
            out.attrs[k] = v
        out.attrs["schema_version"] = np.int64(2)
        out.create_dataset("points", data=old["points"][:])
        steps, donor_steps = old["steps"][:], donor["steps"][:]
        rows = np.zeros(len(steps), dtype=donor_steps.dtype)
        for i, r in enumerate(steps):
            for f in steps.dtype.names:
                rows[i][f] = r[f]
            match = [d for d in donor_steps if d["model"] == r["model"] and
                     d["batch"] == r["batch"] and d["threads"] == r["threads"]]
            if not match:
                sys.exit("%s: no step row for %s batch %d threads %d" % (
                    donor_path, r["model"].decode(), r["batch"], r["threads"]))
            rows[i]["nodes"], rows[i]["handoffs"] = match[0]["nodes"], match[0]["handoffs"]
        out.create_dataset("steps", data=rows)
        out.create_dataset("executor", data=donor["executor"][:])


if __name__ == "__main__":
    main()
