#!/usr/bin/python3
"""Where a traced step's node time goes: per op type, the summed node time and node count.

Usage: analysis/op_time_table.py TRACE.h5 [--step N] [--top K] [--nodes OP]
Reads the trace's compute events (docs/trace-format.md) of one traced step (default: the last)
and prints a Markdown table: op, ms, share of the summed node time, count, ms per node. With
--nodes OP, also the K slowest nodes of that op. Node times of a traced step are measured one
node at a time (on the GPU the executor waits for each kernel), so they are weights, not the
step time: docs/benchmarks.md "GoogLeNet on the GPU: where the step goes".
"""
import argparse
import sys

from trace_io import TraceError, load_trace


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace")
    p.add_argument("--step", type=int, default=None, help="traced step (default: the last)")
    p.add_argument("--top", type=int, default=20, help="rows to print")
    p.add_argument("--nodes", default=None, help="also list the slowest nodes of this op")
    args = p.parse_args()
    try:
        events = load_trace(args.trace)["events"]
    except TraceError as e:
        sys.exit(f"op_time_table: {e}")
    events = events[events["kind_name"] == "compute"]
    if events.empty:
        sys.exit(f"op_time_table: {args.trace} has no compute events")
    step = args.step if args.step is not None else int(events["step"].max())
    events = events[events["step"] == step]
    if events.empty:
        sys.exit(f"op_time_table: {args.trace} has no compute events in step {step}")
    by_op = events.groupby("op_name")["duration_ns"].agg(["sum", "count"])
    by_op = by_op.sort_values("sum", ascending=False)
    total = by_op["sum"].sum()
    print(f"step {step}: {total / 1e6:.1f} ms of node time in {int(by_op['count'].sum())} nodes\n")
    print("| op | ms | share | nodes | ms/node |")
    print("|---|---|---|---|---|")
    for op, row in by_op.head(args.top).iterrows():
        print(f"| {op} | {row['sum'] / 1e6:.2f} | {100 * row['sum'] / total:.1f}% | "
              f"{int(row['count'])} | {row['sum'] / row['count'] / 1e6:.3f} |")
    if args.nodes:
        nodes = events[events["op_name"] == args.nodes].sort_values("duration_ns", ascending=False)
        print(f"\nslowest {args.nodes} nodes:\n")
        for _, row in nodes.head(args.top).iterrows():
            print(f"- {row['node_name']}: {row['duration_ns'] / 1e6:.3f} ms")


if __name__ == "__main__":
    main()
