#!/usr/bin/env python3
"""The dense null step of flowbench-mpi-null-step as a GraphDef JSON for `flowbench sim`
(docs/cluster.md, "Network-bound validation"): a [N] float Variable `params` and an accumulator
`acc` on /job:ps/task:0; every worker k computes params x 0.5 and the ps adds it into acc.
Usage: null_step_graph.py WORKERS OUT.json [N=1048576]
Then: flowbench sim-platform emulated:<WORKERS+1>:1gbit:50us p.xml
      flowbench sim --graph OUT.json --platform p.xml --steps 5
"""
import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    workers, out = int(sys.argv[1]), sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 1048576
    ps = "/job:ps/task:0"
    var = {"dtype": {"type": "float"}, "shape": {"shape": [n]}}
    nodes = [{"name": "params", "op": "Variable", "device": ps, "attrs": var},
             {"name": "acc", "op": "Variable", "device": ps, "attrs": var}]
    for k in range(workers):
        dev = "/job:worker/task:%d" % k
        half = {"tensor": {"dtype": "float", "shape": [], "values": [0.5]}}
        nodes += [
            {"name": "half%d" % k, "op": "Const", "device": dev,
             "attrs": {"dtype": {"type": "float"}, "value": half}},
            {"name": "mul%d" % k, "op": "Mul", "device": dev, "inputs": ["params", "half%d" % k],
             "attrs": {"T": {"type": "float"}}},
            {"name": "upd%d" % k, "op": "AssignAdd", "device": ps, "inputs": ["acc", "mul%d" % k],
             "attrs": {"T": {"type": "float"}}},
        ]
    nodes.append({"name": "train", "op": "NoOp", "device": ps,
                  "inputs": ["^upd%d" % k for k in range(workers)]})
    with open(out, "w") as f:
        json.dump({"version": 1, "nodes": nodes}, f, indent=1)


if __name__ == "__main__":
    main()
