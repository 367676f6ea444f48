"""A coarse training step of the LSTM language model of OSDI 2016 section 6.4 for `flowbench sim`
at up to 256 workers and 32 PS tasks, where replaying every node of the unrolled model on every
replica is too slow. It keeps what the paper says decides the throughput: where the softmax runs
and what crosses the network.

One replica's step, W words (batch x unroll), PS tasks k = 0..ps-1:
  LSTM variables (weights [E+P, 4C], biases [4C], projection [C, P]) round-robin over the PS
      tasks (replica_device_setter); the worker fetches them (Mul by 1) and sends a gradient of
      the same size back (AssignAdd on the PS).
  embedding  [V, E] sharded by rows over every PS task; PS k gathers its share of the W rows the
      step reads (Gather on the PS) and gets the same number of gradient rows back (sparse update).
  worker LSTM forward  MatMul x[W, K1] @ w[K1, P] -> h [W, P], after every parameter arrived;
      K1 chosen so that its FLOPs at the host speed take the measured forward time.
  full softmax  the [P, V] weights sharded by columns over the PS tasks, and computed there
      ("TensorFlow can ... perform the multiplication and gradient calculation on the PS tasks"):
      PS k receives h and computes logits_k = h @ W_k [W, V/ps]; the logits go to the worker,
      which normalises over all V columns (softmax cross-entropy needs every shard's logits: in
      2016 TensorFlow a Concat of the shards' products and SoftmaxCrossEntropyWithLogits on the
      worker; modelled as two element-wise passes over each shard, memory-bound) and returns
      dlogits_k [W, V/ps]; PS k computes dW_k = hT @ dlogits_k and dh_k = dlogits_k @ W_kT
      (3 x 2 W P V/ps FLOPs in all), applies dW_k and returns dh_k [W, P]. Per worker step each
      PS so receives h and dlogits_k and sends logits_k and dh_k.
  sampled softmax  the [V, P] weights sharded by rows; PS k gathers its share of the S + W
      candidate rows (the sampled and the true classes), the worker computes the sampled logits
      and their gradients (3 x 2 W P (S + 1) FLOPs, folded into its backward MatMul) and returns
      the gradient rows (sparse update on the PS).
  worker LSTM backward  MatMul dh_0 [W, P] @ w[P, K2] after every dh_k (full) or candidate rows
      (sampled) arrived, then the gradients leave.
Simulate it with --mode async: each replica then has its own instance of the PS-side partition
(sim/workload.h), as each worker's softmax shard products are its own work on the PS.
"""
import json


def _shape(dims, dtype="float"):
    return {"shape": {"shape": [int(d) for d in dims]}, "dtype": {"type": dtype}}


def _node(name, op, inputs=(), attrs=None, device=None):
    n = {"name": name, "op": op, "inputs": list(inputs), "attrs": attrs or {}}
    if device:
        n["device"] = device
    return n


def _var(name, dims, device):
    return _node(name, "Variable", attrs=_shape(dims), device=device)


def _f(op, name, inputs, device=None):
    return _node(name, op, inputs, {"T": {"type": "float"}}, device)


def _const(name, dtype, dims, values, device):
    return _node(name, "Const", attrs={"dtype": {"type": dtype}, "value": {"tensor": {
        "dtype": dtype, "shape": list(dims), "values": values}}}, device=device)


def shard_sizes(total, parts):
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]


def _gather(nodes, prefix, table, rows, picked, dev):
    """PS-side Gather of `picked` of the `rows` rows of `table` -> node name."""
    nodes.append(_const(f"{prefix}_idx", "int32", [picked],
                        [(i * 7919) % rows for i in range(picked)], dev))
    nodes.append(_node(f"{prefix}_rows", "Gather", [table, f"{prefix}_idx"],
                       {"Tparams": {"type": "float"}, "Tindices": {"type": "int32"}}, dev))
    return f"{prefix}_rows"


def _sparse_update(nodes, prefix, rows_node, picked, width, dev, after):
    """Worker returns `picked` gradient rows, the PS adds them (after `after`)."""
    nodes.append(_f("Mul", f"{prefix}_grad", [rows_node, "half", f"^{after}"], "/job:worker"))
    nodes.append(_var(f"{prefix}_acc", [picked, width], dev))
    nodes.append(_f("AssignAdd", f"{prefix}_apply", [f"{prefix}_acc", f"{prefix}_grad"]))


def step_graph(m, ps, softmax, words, host_flops, fwd_s, bwd_s):
    """GraphDef (dict). m: {vocab, embedding, cells, projection, num_sampled}; softmax: full |
    sampled; words: W per replica step; fwd_s / bwd_s: the worker's measured LSTM (+ embedding)
    forward and backward time per step at host_flops (with sampled softmax, bwd_s must include
    the sampled softmax's time)."""
    if softmax not in ("full", "sampled"):
        raise ValueError(f"softmax must be full or sampled, got '{softmax}'")
    if ps < 1 or words < 1 or host_flops <= 0 or fwd_s < 0 or bwd_s < 0:
        raise ValueError(f"bad step: ps={ps} words={words} host_flops={host_flops} "
                         f"fwd_s={fwd_s} bwd_s={bwd_s}")
    V, E, C, P = m["vocab"], m["embedding"], m["cells"], m["projection"]
    wk = "/job:worker"
    nodes = [_const("one", "float", [], [1.0], wk), _const("half", "float", [], [0.5], wk)]
    arrived = []
    lstm = [("lstm_weights", [E + P, 4 * C]), ("lstm_biases", [4 * C]),
            ("lstm_projection", [C, P])]
    for j, (name, dims) in enumerate(lstm):
        nodes.append(_var(name, dims, f"/job:ps/task:{j % ps}"))
        nodes.append(_f("Mul", f"{name}_fetch", [name, "one"], wk))
        arrived.append(f"{name}_fetch")
    emb_rows, emb_picked = shard_sizes(V, ps), shard_sizes(words, ps)
    for k in range(ps):
        if emb_picked[k] == 0:
            continue
        dev = f"/job:ps/task:{k}"
        nodes.append(_var(f"emb_{k}", [emb_rows[k], E], dev))
        arrived.append(_gather(nodes, f"emb_{k}", f"emb_{k}", emb_rows[k], emb_picked[k], dev))
    k1 = max(1, round(host_flops * fwd_s / (2.0 * words * P)))
    nodes += [_var("x", [words, k1], wk), _var("w_fwd", [k1, P], wk)]
    nodes.append(_f("MatMul", "h", ["x", "w_fwd"] + [f"^{a}" for a in arrived], wk))
    back = []
    cls = shard_sizes(V, ps)
    cand = shard_sizes(m["num_sampled"] + words, ps)
    for k in range(ps):
        dev = f"/job:ps/task:{k}"
        if softmax == "full":
            nodes += [_var(f"sw_{k}", [P, cls[k]], dev), _var(f"swt_{k}", [cls[k], P], dev),
                      _var(f"ht_{k}", [P, words], dev)]
            nodes.append(_f("MatMul", f"logits_{k}", ["h", f"sw_{k}"], dev))
            nodes.append(_f("Mul", f"lg_{k}", [f"logits_{k}", "one"], wk))
        elif cand[k] > 0:
            nodes.append(_var(f"sw_{k}", [cls[k], P], dev))
            back.append(_gather(nodes, f"cand_{k}", f"sw_{k}", cls[k], cand[k], dev))
    if softmax == "full":
        # The cross-entropy over all V columns: every shard's logits before any gradient.
        nodes.append(_f("Mul", "xent", ["one", "one"] + [f"^lg_{k}" for k in range(ps)], wk))
        for k in range(ps):
            dev = f"/job:ps/task:{k}"
            nodes.append(_f("Mul", f"dlogits_{k}", [f"lg_{k}", "half", "^xent"], wk))
            nodes.append(_f("MatMul", f"dsw_{k}", [f"ht_{k}", f"dlogits_{k}"], dev))
            nodes.append(_f("MatMul", f"dh_{k}", [f"dlogits_{k}", f"swt_{k}"], dev))
            nodes.append(_f("AssignAdd", f"sw_apply_{k}", [f"sw_{k}", f"dsw_{k}"]))
            back.append(f"dh_{k}")
    k2 = max(1, round(host_flops * bwd_s / (2.0 * words * P)))
    nodes.append(_var("w_bwd", [P, k2], wk))
    first = back[0] if softmax == "full" else "h"
    nodes.append(_f("MatMul", "backward", [first, "w_bwd"] + [f"^{b}" for b in back], wk))
    for name, dims in lstm:
        nodes.append(_f("Mul", f"{name}_grad", [f"{name}_fetch", "half", "^backward"], wk))
        nodes.append(_f("AssignAdd", f"{name}_apply", [name, f"{name}_grad"]))
    for k in range(ps):
        dev = f"/job:ps/task:{k}"
        if emb_picked[k] > 0:
            _sparse_update(nodes, f"emb_{k}", f"emb_{k}_rows", emb_picked[k], E, dev, "backward")
        if softmax == "sampled" and cand[k] > 0:
            _sparse_update(nodes, f"cand_{k}", f"cand_{k}_rows", cand[k], P, dev, "backward")
    return {"version": 1, "nodes": nodes}


def write_step_graph(path, *args, **kwargs):
    with open(path, "w") as f:
        json.dump(step_graph(*args, **kwargs), f)
