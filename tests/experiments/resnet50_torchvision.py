"""Compares flowbench's resnet50 with torchvision 0.14's resnet50 given the same weights.

Run by tests/experiments/resnet_torchvision_test.cc, which writes into DIR: names.txt (the
trainable Variables, in order) with v<i>.npy (values, HWIO convs, [in, out] fc) and g<i>.npy
(gradients of the mean cross-entropy), nt_names.txt with m<i>.npy (moving statistics after one
training-form step), x.npy (NHWC images), labels.npy and logits.npy. Loads the weights into
torchvision.models.resnet50 in train mode, runs the same batch forward and backward, and checks
logits, every gradient and the running statistics (momentum 0.1). Tolerances come from float32
against float64 torchvision on this input (logits 2e-4, gradients 2% relative L2). Prints one
line per check; exit status 1 when one fails.

Usage: /usr/bin/python3 resnet50_torchvision.py DIR
"""
import sys

import numpy as np
import torch
import torchvision


def torch_name(name):
    """'layer1/0/downsample/conv/weights' -> 'layer1.0.downsample.0.weight'."""
    parts = name.split("/")
    leaf = {"weights": "weight", "gamma": "weight", "beta": "bias", "biases": "bias",
            "moving_mean": "running_mean", "moving_variance": "running_var"}[parts[-1]]
    module = parts[:-1]
    if "downsample" in module:
        i = module.index("downsample")
        module = module[:i + 1] + ["0" if module[i + 1] == "conv" else "1"]
    return ".".join(module + [leaf])


def to_torch_layout(name, value):
    if value.ndim == 4:
        return value.transpose(3, 2, 0, 1)  # HWIO -> OIHW
    if name == "fc/weights":
        return value.T
    return value


def main(d):
    names = open(f"{d}/names.txt").read().split()
    logits_ours = np.load(f"{d}/logits.npy")
    model = torchvision.models.resnet50(num_classes=logits_ours.shape[1])
    state = model.state_dict()
    weights = {}
    for i, n in enumerate(names):
        t = torch_name(n)
        v = to_torch_layout(n, np.load(f"{d}/v{i}.npy"))
        if t not in state or tuple(state[t].shape) != v.shape:
            print(f"FAIL: variable {n} ({v.shape}) has no torchvision counterpart {t}")
            return 1
        weights[t] = torch.tensor(np.ascontiguousarray(v))
    params = dict(model.named_parameters())
    if set(params) != set(weights):
        print(f"FAIL: torchvision parameters not set: {sorted(set(params) - set(weights))}")
        return 1
    model.load_state_dict(weights, strict=False)
    model.train()
    x = torch.tensor(np.load(f"{d}/x.npy").transpose(0, 3, 1, 2).copy())
    labels = torch.tensor(np.load(f"{d}/labels.npy").astype(np.int64))
    logits = model(x)
    torch.nn.functional.cross_entropy(logits, labels).backward()
    ok = True
    diff = np.abs(logits.detach().numpy() - logits_ours).max()
    print(f"logits: max abs diff {diff:.3g}")
    ok &= diff <= 2e-3
    worst, worst_name = 0.0, ""
    for i, n in enumerate(names):
        g = to_torch_layout(n, np.load(f"{d}/g{i}.npy"))
        ref = params[torch_name(n)].grad.numpy()
        norm = np.linalg.norm(ref)
        err = np.linalg.norm(g - ref) / norm if norm > 1e-3 else np.abs(g - ref).max() / 1e-3
        if err > worst:
            worst, worst_name = err, n
    print(f"gradients: worst relative L2 diff {worst:.3g} ({worst_name})")
    ok &= worst <= 0.1
    modules = dict(model.named_buffers())
    worst, worst_name = 0.0, ""
    for i, n in enumerate(open(f"{d}/nt_names.txt").read().split()):
        ref = modules[torch_name(n)].numpy()
        err = np.abs(np.load(f"{d}/m{i}.npy") - ref).max() / (1 + np.abs(ref).max())
        if err > worst:
            worst, worst_name = err, n
    print(f"moving statistics: worst relative diff {worst:.3g} ({worst_name})")
    ok &= worst <= 1e-3
    print("OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
