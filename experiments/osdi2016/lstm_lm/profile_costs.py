"""The paper-scale step's costs from a `flowbench profile` of the word LSTM (docs/simulator.md,
"Profiles"): per-node mean times of the unrolled full-softmax model and of the sampled-softmax
model at the largest profiled batch, grouped by node name:
  softmax   softmax/, logits, xent/ and their gradients: FLOPs / time is the host speed the
            paper-scale platform gets (the PS tasks compute the full softmax with it);
  optimizer Apply* and Adam/ (the single-process profile trains with Adam; the distributed step
            applies plain SGD on the PS tasks, modelled there by the coarse step's AssignAdds);
  dense embedding gradient  UnsortedSegmentSum ([V, E] here; the paper's TensorFlow sends the
            rows, which the coarse step models as sparse updates);
  worker    the rest: forward (not under gradients/) and backward, per word.
The sampled softmax's worker time per word: the xent/ nodes (and their gradients, without the
dense segment sums) of the sampled model.
"""
import h5py


def _is_softmax(name):
    return any(s in name for s in ("softmax/", "xent/", "logits"))


def _group(node, op):
    if op.startswith("Apply") or node.startswith("Adam/"):
        return "optimizer"
    if op == "UnsortedSegmentSum":
        return "dense embedding gradient"
    if _is_softmax(node):
        return "softmax"
    return "worker backward" if node.startswith("gradients/") else "worker forward"


class StepCosts:
    def __init__(self, groups, sampled_s_per_word, words, softmax_flops_per_s, batch, load):
        self.groups = groups                     # group -> seconds at `words` (full model)
        self.sampled_s_per_word = sampled_s_per_word
        self.words = words
        self.softmax_flops_per_s = softmax_flops_per_s
        self.batch = batch
        self.load = load

    def worker_times(self, softmax, words):
        """(forward s, backward s) of one worker step of `words` words."""
        scale = words / self.words
        fwd = self.groups["worker forward"] * scale
        bwd = self.groups["worker backward"] * scale
        if softmax == "sampled":
            bwd += self.sampled_s_per_word * words
        return fwd, bwd


def step_costs(path, model):
    with h5py.File(path, "r") as f:
        points = f["/points"][:]
        steps = f["/steps"][:]
    unrolled = [p for p in points if p["model"].decode() == "lstm_lm_word_unrolled"]
    sampled = [p for p in points if p["model"].decode() == "lstm_lm_word_sampled"]
    if not unrolled or not sampled:
        raise ValueError(f"profile '{path}' lacks lstm_lm_word_unrolled or lstm_lm_word_sampled")
    batch = max(int(p["batch"]) for p in unrolled)
    sbatch = max(int(p["batch"]) for p in sampled)
    groups, flops = {}, 0.0
    for p in unrolled:
        if int(p["batch"]) != batch:
            continue
        g = _group(p["node"].decode(), p["op"].decode())
        groups[g] = groups.get(g, 0.0) + p["time_ns"] * 1e-9
        if g == "softmax":
            flops += p["flops"]
    for g in ("worker forward", "worker backward", "softmax"):
        groups.setdefault(g, 0.0)
    sampled_s = sum(p["time_ns"] * 1e-9 for p in sampled if int(p["batch"]) == sbatch
                    and "xent/" in p["node"].decode() and p["op"].decode() != "UnsortedSegmentSum"
                    and not p["op"].decode().startswith("Apply"))
    load = max(float(s["load_average"]) for s in steps)
    rate = flops / groups["softmax"] if groups["softmax"] > 0 else 1e9
    return StepCosts(groups, sampled_s / (sbatch * model["unroll"]), batch * model["unroll"],
                     rate, batch, load)
