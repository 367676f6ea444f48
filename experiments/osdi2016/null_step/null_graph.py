"""GraphDef JSON of the OSDI 2016 null step (section 6.2) for `flowbench sim`, and the SimGrid
cluster platform it runs on.

One replica's graph with its model sharded over `ps` parameter-server tasks (devices requested
explicitly, so the simulator's workload keeps them, sim/workload.h): for each shard k
  dense/scalar  params_k (Variable on /job:ps/task:k) -> Mul(params_k, 0.5) on /job:worker ->
                AssignAdd(params_k, ...) (colocated with params_k: the update goes back);
  sparse        table_k [rows/ps, 64] on the PS, Gather of its share of the 32 rows on the PS
                (the lookup happens where the table is), Mul on the worker, AssignAdd into a
                [rows_k, 64] accumulator on the PS (as benchmarks/mpi/null_step_bench.cc does).
                The row ids are the worker's (2016 TensorFlow's embedding_lookup over a sharded
                table: the worker partitions the step's ids by shard, DynamicPartition, and sends
                each PS its share; the PS gathers and later applies the sparse gradient,
                ScatterSub with the same ids, whose Recv the partitioner shares): each PS
                receives two messages per worker step (ids, gradient rows), a scalar PS one.
With `flowbench sim --replicas N --ps 16 --mode sync` every worker runs the worker part and each
PS sums the N updates once per step.
"""
import json

EMBEDDING_DIM, SPARSE_ROWS = 64, 32


def _shape(dims):
    return {"shape": {"shape": list(dims)}, "dtype": {"type": "float"}}


def _node(name, op, inputs=(), attrs=None, device=None):
    n = {"name": name, "op": op, "inputs": list(inputs), "attrs": attrs or {}}
    if device:
        n["device"] = device
    return n


def _const(name, dtype, dims, values, device):
    return _node(name, "Const", attrs={"dtype": {"type": dtype}, "value": {"tensor": {
        "dtype": dtype, "shape": list(dims), "values": values}}}, device=device)


def _shard_sizes(total, parts):
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]


def null_step_graph(kind, model_bytes, ps):
    """GraphDef (dict) of one replica's null step. kind: scalar, dense or sparse."""
    if kind not in ("scalar", "dense", "sparse"):
        raise ValueError(f"null-step model kind must be scalar, dense or sparse, got '{kind}'")
    nodes, half = [], "half"
    nodes.append(_const(half, "float", [], [0.5], "/job:worker"))
    floats = ps if kind == "scalar" else model_bytes // 4
    rows = floats // EMBEDDING_DIM
    for k in range(ps):
        dev = f"/job:ps/task:{k}"
        if kind == "sparse":
            shard_rows = _shard_sizes(rows, ps)[k]
            picked = _shard_sizes(SPARSE_ROWS, ps)[k]
            if picked == 0:
                continue
            nodes.append(_node(f"table_{k}", "Variable", attrs=_shape([shard_rows, EMBEDDING_DIM]),
                               device=dev))
            nodes.append(_const(f"idx_{k}", "int32", [picked],
                                [(i * 7919) % shard_rows for i in range(picked)],
                                "/job:worker"))
            nodes.append(_node(f"lookup_{k}", "Gather", [f"table_{k}", f"idx_{k}"],
                               {"Tparams": {"type": "float"}, "Tindices": {"type": "int32"}},
                               device=dev))
            nodes.append(_node(f"acc_{k}", "Variable", attrs=_shape([picked, EMBEDDING_DIM]),
                               device=dev))
            fetched, target = f"lookup_{k}", f"acc_{k}"
        else:
            size = _shard_sizes(floats, ps)[k]
            nodes.append(_node(f"params_{k}", "Variable", attrs=_shape([size]), device=dev))
            fetched = target = f"params_{k}"
        nodes.append(_node(f"update_{k}", "Mul", [fetched, half], {"T": {"type": "float"}},
                           device="/job:worker"))
        nodes.append(_node(f"apply_{k}", "AssignAdd", [target, f"update_{k}"],
                           {"T": {"type": "float"}}))
    return {"version": 1, "nodes": nodes}


def write_graph(path, kind, model_bytes, ps):
    with open(path, "w") as f:
        json.dump(null_step_graph(kind, model_bytes, ps), f)


def write_platform(path, hosts, bandwidth, latency_s, flops, memory_bandwidth,
                   message_overhead_ns=0.0, host_bytes_per_s=0.0):
    """A flat cluster: every host has a private full-duplex link of `bandwidth` bytes/s to a
    non-blocking backbone (a datacenter network without oversubscription). Every host handles
    each message it receives in `message_overhead_ns` of CPU, one at a time (the simulator's
    message_overhead_ns host property, sim/message_cost.h; 0: none), and, when
    `host_bytes_per_s` > 0, serialises every message it sends and deserialises every message it
    receives at that rate on the same handler (serialize_bytes_per_s and
    send_serialize_bytes_per_s: one per-byte CPU budget that both directions share)."""
    bandwidth, latency_s = float(bandwidth), float(latency_s)
    flops, memory_bandwidth = float(flops), float(memory_bandwidth)
    message_overhead_ns, host_bytes_per_s = float(message_overhead_ns), float(host_bytes_per_s)
    if not message_overhead_ns >= 0:
        raise ValueError(f"message_overhead_ns must be >= 0, got {message_overhead_ns}")
    if not host_bytes_per_s >= 0:
        raise ValueError(f"host_bytes_per_s must be >= 0, got {host_bytes_per_s}")
    msg = (f'\n    <prop id="message_overhead_ns" value="{message_overhead_ns:.6g}"/>'
           if message_overhead_ns > 0 else "")
    if host_bytes_per_s > 0:
        msg += (f'\n    <prop id="serialize_bytes_per_s" value="{host_bytes_per_s:.6g}"/>'
                f'\n    <prop id="send_serialize_bytes_per_s" value="{host_bytes_per_s:.6g}"/>')
    with open(path, "w") as f:
        f.write(f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- Written by experiments/osdi2016/null_step/null_graph.py: {hosts} hosts, a private
     {bandwidth:.4g} B/s full-duplex link each, {latency_s:g} s, non-blocking backbone,
     {message_overhead_ns:g} ns of handling per message received, {host_bytes_per_s:.4g} B/s
     of (de)serialisation per host shared by sending and receiving (0: none). -->
<platform version="4.1">
  <zone id="world" routing="Full">
  <cluster id="cluster" prefix="node-" suffix="" radical="0-{hosts - 1}" speed="{flops:g}f"
           bw="{bandwidth:.6g}Bps" lat="{latency_s:g}s" sharing_policy="SPLITDUPLEX"
           bb_bw="1e13Bps" bb_lat="0s" loopback_bw="1e11Bps" loopback_lat="0s">
    <prop id="device_type" value="CPU"/>
    <prop id="memory_bandwidth_bytes_per_s" value="{memory_bandwidth:g}"/>
    <prop id="launch_overhead_ns" value="5000"/>{msg}
  </cluster>
  </zone>
</platform>
""")
