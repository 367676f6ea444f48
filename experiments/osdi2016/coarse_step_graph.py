"""A coarse data-parallel training step for `flowbench sim` at hundreds of workers (OSDI 2016
section 6.3), where replaying every node of the real model on every replica is too slow
(Inception-v3 with 25 replicas ran for more than 10 minutes).

The step keeps what decides the distributed behaviour: the real model's variables with their
bytes, layer by layer round-robin over the PS tasks in creation order (replica_device_setter
goes round-robin over the variables), and
the worker's compute in layer order, so that parameters arriving, the forward pass, the backward
pass and gradients leaving overlap as in the real step. A layer is a variable of at least
`min_compute_bytes` (its weights) with the smaller variables after it (its bias or batch-norm
vectors; those before the first weights join the first layer): one message each way per layer.
For layer j (creation order):
  v_j       Variable on /job:ps/task:(j mod P), the layer's bytes
  fetch_j   Identity on the worker (the parameters arrive; a Recv across tasks)
  fwd_j     MatMul on the worker after fetch_j and fwd_(j-1): the layer's share of the forward
            pass
  bwd_j     MatMul after bwd_(j+1), the last layer's after the last fwd: its share of the backward
            pass, in reverse layer order
  grad_j    Identity of fetch_j after bwd_j: the gradient leaves as soon as its layer is done
  apply_j   AssignAdd(v_j, grad_j), on the PS (colocated with v_j by the engine)
Compute: the worker's FLOPs per step spread evenly over the layers, a third forward and two
thirds backward (the backward pass computes the data and the filter gradients, each about the
forward's FLOPs). Each MatMul is square, 2 n^3 = its FLOPs.
Checked against real runs (inception_v3/anchor.py): on this machine, 1 PS + 3 workers of
Inception-v3 at batch 2, this step predicts sync, async and backup within a few percent, where a
step with one fetch and one compute op per PS shard over-predicted by 26-34% (no overlap).
2016 TensorFlow sent every variable in a message of its own; one message per layer halves the
simulated messages (Inception-v3: 94 layers of 190 variables) and the simulation time with them,
and moved the median step of 54 replicas on 17 PS by 0.1%.
"""
import csv
import json


def _var(name, dims, device=None):
    n = {"name": name, "op": "Variable", "inputs": [],
         "attrs": {"shape": {"shape": list(dims)}, "dtype": {"type": "float"}}}
    if device:
        n["device"] = device
    return n


def _op(name, op, inputs, device=None):
    n = {"name": name, "op": op, "inputs": list(inputs), "attrs": {"T": {"type": "float"}}}
    if device:
        n["device"] = device
    return n


def variable_bytes(opwork_csv):
    """Bytes of every Variable a step needs, in creation order, from the per-node work table of
    flowbench-osdi-opwork (../op_work_main.cc)."""
    with open(opwork_csv) as f:
        return [int(r["output_bytes"]) for r in csv.DictReader(f)
                if r["op"] == "Variable" and r["needed"] == "1"]


def round_robin_shards(variable_bytes, ps):
    """Bytes per PS task when variables (in creation order) go round-robin to `ps` tasks."""
    shards = [0] * ps
    for i, b in enumerate(variable_bytes):
        shards[i % ps] += b
    return shards


def _side(flops):
    return max(1, round((max(flops, 2.0) / 2) ** (1 / 3)))


def _matmul(nodes, name, flops, deps):
    n = _side(flops)
    nodes += [_var(f"{name}_a", [n, n], "/job:worker"), _var(f"{name}_b", [n, n], "/job:worker")]
    nodes.append(_op(name, "MatMul", [f"{name}_a", f"{name}_b"] + deps, "/job:worker"))


def layers(variable_bytes, min_compute_bytes=16384):
    """Bytes per layer: each variable of at least min_compute_bytes starts a layer, smaller ones
    join the layer before them (those before the first large one join the first layer; with no
    large variable at all, one layer holds everything)."""
    out, lead = [], 0
    for b in variable_bytes:
        if b >= min_compute_bytes:
            out.append(b + lead)
            lead = 0
        elif out:
            out[-1] += b
        else:
            lead += b
    return out or [lead]


def step_graph(variable_bytes, ps, worker_flops, min_compute_bytes=16384, forward_fraction=1 / 3):
    """GraphDef (dict) of the step above. variable_bytes: each variable's bytes in creation order
    (> 0 each); ps: PS tasks (>= 1); worker_flops: the worker's FLOPs per step (> 0)."""
    if ps < 1 or not variable_bytes or any(b <= 0 for b in variable_bytes):
        raise ValueError(f"need >= 1 PS task and variables of positive size, got ps={ps}, "
                         f"{len(variable_bytes)} variables (min {min(variable_bytes or [0])} B)")
    if not worker_flops > 0:
        raise ValueError(f"the worker's FLOPs per step must be > 0, got {worker_flops}")
    sizes = layers(variable_bytes, min_compute_bytes)
    share = worker_flops / len(sizes)
    nodes = []
    for j, nbytes in enumerate(sizes):
        nodes.append(_var(f"v_{j}", [max(1, nbytes // 4)], f"/job:ps/task:{j % ps}"))
        nodes.append(_op(f"fetch_{j}", "Identity", [f"v_{j}"], "/job:worker"))
        _matmul(nodes, f"fwd_{j}", share * forward_fraction,
                [f"^fetch_{j}"] + ([f"^fwd_{j - 1}"] if j else []))
    for j in reversed(range(len(sizes))):
        done = f"^bwd_{j + 1}" if j + 1 < len(sizes) else f"^fwd_{j}"
        _matmul(nodes, f"bwd_{j}", share * (1 - forward_fraction), [done])
        nodes.append(_op(f"grad_{j}", "Identity", [f"fetch_{j}", f"^bwd_{j}"], "/job:worker"))
        nodes.append(_op(f"apply_{j}", "AssignAdd", [f"v_{j}", f"grad_{j}"]))
    return {"version": 1, "nodes": nodes}


def write_step_graph(path, variable_bytes, ps, worker_flops):
    with open(path, "w") as f:
        json.dump(step_graph(variable_bytes, ps, worker_flops), f)
