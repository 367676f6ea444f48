#!/usr/bin/python3
"""Writes every table of a flowbench trace as CSV, with ids resolved to names.

Usage: analysis/trace_to_csv.py TRACE.h5 OUT_DIR
Writes OUT_DIR/{events,steps,memory,metrics,devices,ops,edges}.csv and attrs.csv (the root
attributes as name,value rows). Format: docs/trace-format.md.
"""
import argparse
import os
import sys

import pandas as pd

from trace_io import TraceError, load_trace


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace")
    p.add_argument("out_dir")
    args = p.parse_args()
    try:
        trace = load_trace(args.trace)
    except TraceError as e:
        sys.exit(f"trace_to_csv: {e}")
    os.makedirs(args.out_dir, exist_ok=True)
    for name in ["events", "steps", "memory", "metrics", "devices", "ops", "edges"]:
        out = os.path.join(args.out_dir, name + ".csv")
        trace[name].to_csv(out, index=False)
        print(out)
    attrs = pd.DataFrame(sorted(trace["attrs"].items()), columns=["name", "value"])
    attrs.to_csv(os.path.join(args.out_dir, "attrs.csv"), index=False)


if __name__ == "__main__":
    main()
