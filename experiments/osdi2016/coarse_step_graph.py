"""A coarse data-parallel training step for `flowbench sim` at hundreds of workers (OSDI 2016
sections 6.3 and 6.4), where replaying every node of the real model on every replica is too slow
(Inception-v3 with 25 replicas ran for more than 10 minutes).

The step keeps what decides the distributed behaviour: the bytes of every parameter-server shard
(the real model's variables assigned round-robin to the PS tasks, as replica_device_setter does)
and the worker's compute time. For each PS task k:
  params_k (Variable on /job:ps/task:k, the sum of its variables' sizes)
  -> fetch_k = Mul(params_k, 1) on the worker (the parameters arrive)
  -> work_k = MatMul(a_k, b_k) on the worker, after fetch_k (control edge): this shard's share of
     the step's compute, square matrices of side n_k with 2 n_k^3 = its FLOPs
  -> grad_k = Mul(fetch_k, 0.5) after work_k (control edge)
  -> AssignAdd(params_k, grad_k) on the PS (colocated with params_k by the engine)
so the worker computes as parameters arrive and sends each gradient when its share is done.
"""
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


def _const(name, value, device):
    return {"name": name, "op": "Const", "inputs": [], "device": device,
            "attrs": {"dtype": {"type": "float"},
                      "value": {"tensor": {"dtype": "float", "shape": [], "values": [value]}}}}


def round_robin_shards(variable_bytes, ps):
    """Bytes per PS task when variables (in creation order) go round-robin to `ps` tasks."""
    shards = [0] * ps
    for i, b in enumerate(variable_bytes):
        shards[i % ps] += b
    return shards


def _side(flops):
    return max(1, round((max(flops, 2.0) / 2) ** (1 / 3)))


def step_graph(shard_bytes, worker_flops):
    """GraphDef (dict). shard_bytes: bytes per PS task (> 0 each); worker_flops: the worker's
    FLOPs per step, spread over the shards in proportion to their bytes."""
    total = float(sum(shard_bytes))
    if total <= 0 or any(b <= 0 for b in shard_bytes):
        raise ValueError(f"every PS shard needs a positive size, got {shard_bytes}")
    nodes = [_const("one", 1.0, "/job:worker"), _const("half", 0.5, "/job:worker")]
    for k, nbytes in enumerate(shard_bytes):
        ps = f"/job:ps/task:{k}"
        nodes.append(_var(f"params_{k}", [max(1, nbytes // 4)], ps))
        nodes.append(_op(f"fetch_{k}", "Mul", [f"params_{k}", "one"], "/job:worker"))
        n = _side(worker_flops * nbytes / total)
        nodes += [_var(f"a_{k}", [n, n], "/job:worker"), _var(f"b_{k}", [n, n], "/job:worker")]
        nodes.append(_op(f"work_{k}", "MatMul", [f"a_{k}", f"b_{k}", f"^fetch_{k}"],
                         "/job:worker"))
        nodes.append(_op(f"grad_{k}", "Mul", [f"fetch_{k}", "half", f"^work_{k}"],
                         "/job:worker"))
        nodes.append(_op(f"apply_{k}", "AssignAdd", [f"params_{k}", f"grad_{k}"]))
    return {"version": 1, "nodes": nodes}


def write_step_graph(path, shard_bytes, worker_flops):
    with open(path, "w") as f:
        json.dump(step_graph(shard_bytes, worker_flops), f)
