"""Compares flowbench's inception_v3 with torchvision 0.14's inception_v3 given the same weights.

Run by tests/experiments/inception_v3_torchvision_test.cc, which writes into DIR: names.txt (the
trainable Variables, in order) with v<i>.npy (values: HWIO convs, [in, out] fc) and g<i>.npy
(gradients of the mean cross-entropy), nt_names.txt with m<i>.npy (moving statistics after one
training-form step), x.npy (NHWC images), labels.npy and logits.npy. Builds
torchvision.models.inception_v3(aux_logits=False, transform_input=False, init_weights=False),
loads the weights, sets dropout to p = 0 (flowbench's model has none), runs the same batch forward
and backward in train mode in float64, and checks logits, every gradient and the running
statistics (momentum 0.1, unbiased batch variance). Our side is float32, and 94 batch
normalizations of a batch of two amplify rounding on the way down: on the test's input torch's own
float32 gradients differ from its float64 ones by up to 3.4% relative L2 (median 1.3%), ours by up
to 2.8% (median 1.5%), while the top layers agree to 1e-4 as torch's do. Tolerances: logits 2e-3
absolute, gradients 6% relative L2 per variable, moving statistics 1e-3 relative. Prints one line
per check and OK or FAIL; exit status 1 when one fails.

Usage: /usr/bin/python3 inception_v3_torchvision.py DIR
"""
import sys

import numpy as np
import torch
import torchvision


def torch_name(name):
    """'Mixed_5b/branch1x1/weights' -> 'Mixed_5b.branch1x1.conv.weight';
    'Mixed_5b/branch1x1/bn/gamma' -> 'Mixed_5b.branch1x1.bn.weight'; 'fc/weights' -> 'fc.weight'."""
    parts = name.split("/")
    leaf = {"weights": "weight", "gamma": "weight", "beta": "bias", "biases": "bias",
            "moving_mean": "running_mean", "moving_variance": "running_var"}[parts[-1]]
    module = parts[:-1]
    if parts[-1] == "weights" and module != ["fc"]:
        module = module + ["conv"]
    return ".".join(module + [leaf])


def to_torch_layout(name, value):
    if value.ndim == 4:
        return value.transpose(3, 2, 0, 1)  # HWIO -> OIHW
    if name == "fc/weights":
        return value.T
    return value


def build(d, num_classes):
    model = torchvision.models.inception_v3(weights=None, aux_logits=False,
                                            transform_input=False, init_weights=False,
                                            num_classes=num_classes).double()
    model.dropout.p = 0.0
    state = model.state_dict()
    params = dict(model.named_parameters())
    weights = {}
    for i, n in enumerate(open(f"{d}/names.txt").read().split()):
        t = torch_name(n)
        v = to_torch_layout(n, np.load(f"{d}/v{i}.npy"))
        if t not in state or tuple(state[t].shape) != v.shape:
            print(f"FAIL: variable {n} {v.shape} has no torchvision counterpart {t}")
            return None
        weights[t] = torch.tensor(np.ascontiguousarray(v), dtype=torch.float64)
    # flowbench's batch norms have no gamma (TF-slim scale=False): torchvision's is fixed at 1.
    for name, p in params.items():
        if name.endswith(".bn.weight") and name not in weights:
            weights[name] = torch.ones_like(p)
            p.requires_grad_(False)
    if set(params) != set(weights):
        print(f"FAIL: torchvision parameters not set: {sorted(set(params) - set(weights))}")
        return None
    model.load_state_dict(weights, strict=False)
    return model


def worst_gradient(d, names, params):
    worst, worst_name = 0.0, ""
    for i, n in enumerate(names):
        g = to_torch_layout(n, np.load(f"{d}/g{i}.npy"))
        ref = params[torch_name(n)].grad.numpy()
        norm = np.linalg.norm(ref)
        err = np.linalg.norm(g - ref) / norm if norm > 1e-4 else np.abs(g - ref).max() / 1e-4
        if err > worst:
            worst, worst_name = err, n
    return worst, worst_name


def worst_moving(d, buffers):
    worst, worst_name = 0.0, ""
    for i, n in enumerate(open(f"{d}/nt_names.txt").read().split()):
        ref = buffers[torch_name(n)].numpy()
        err = np.abs(np.load(f"{d}/m{i}.npy") - ref).max() / (1 + np.abs(ref).max())
        if err > worst:
            worst, worst_name = err, n
    return worst, worst_name


def main(d):
    logits_ours = np.load(f"{d}/logits.npy")
    model = build(d, logits_ours.shape[1])
    if model is None:
        return 1
    model.train()
    x = torch.tensor(np.load(f"{d}/x.npy").transpose(0, 3, 1, 2).copy(), dtype=torch.float64)
    labels = torch.tensor(np.load(f"{d}/labels.npy").astype(np.int64))
    logits = model(x)
    torch.nn.functional.cross_entropy(logits, labels).backward()
    ok = True
    diff = np.abs(logits.detach().numpy() - logits_ours).max()
    print(f"logits: max abs diff {diff:.3g}")
    ok &= diff <= 2e-3
    names = open(f"{d}/names.txt").read().split()
    worst, worst_name = worst_gradient(d, names, dict(model.named_parameters()))
    print(f"gradients: worst relative L2 diff {worst:.3g} ({worst_name})")
    ok &= worst <= 0.06
    worst, worst_name = worst_moving(d, dict(model.named_buffers()))
    print(f"moving statistics: worst relative diff {worst:.3g} ({worst_name})")
    ok &= worst <= 1e-3
    print("OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
