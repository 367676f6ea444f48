"""PyTorch versions of the flowbench models, for analysis/compare_pytorch.py.

Each builder takes a spec (what `flowbench benchmark --metrics-json` reports: image_shape
[rows, cols, channels], num_classes, unit "images"/"words" and, for a language model, num_steps)
and returns an nn.Module taking NCHW float images (or [batch, num_steps] token ids) and
returning logits.

The convnets follow convnet-benchmarks (github.com/soumith/convnet-benchmarks, tensorflow/
benchmark_*.py): ReLU after every convolution and hidden affine layer, max pooling without
padding unless the model says SAME, no dropout, LRN or batch norm. Pinned parameter counts
(PINNED_PARAMETER_COUNTS) are those the flowbench models must have too.
"""
import torch
from torch import nn

PINNED_PARAMETER_COUNTS = {
    "alexnet": 61_100_840,
    "overfeat": 145_920_872,
    "vgg_a": 132_863_336,
    "googlenet": 6_998_552,
    "inception_v3": 23_817_352,
    "resnet50": 25_557_032,
}

# Input shape [rows, cols, channels] and classes when no flowbench run says (the `params` mode).
DEFAULT_SPECS = {
    "mlp": ([28, 28, 1], 10), "lenet": ([28, 28, 1], 10),
    "alexnet": ([227, 227, 3], 1000), "overfeat": ([231, 231, 3], 1000),
    "vgg_a": ([224, 224, 3], 1000), "googlenet": ([224, 224, 3], 1000),
    "inception_v3": ([299, 299, 3], 1000), "resnet50": ([224, 224, 3], 1000),
}

# lstm_lm_word: sizes of the flowbench model (the vocabulary comes from the flowbench run).
LSTM_EMBEDDING, LSTM_HIDDEN, LSTM_PROJECTION = 512, 512, 512


def default_spec(name):
    if name == "lstm_lm_word":
        return {"image_shape": [], "num_classes": 10_000, "unit": "words", "num_steps": 20}
    shape, classes = DEFAULT_SPECS[name]
    return {"image_shape": shape, "num_classes": classes, "unit": "images"}


def parameter_count(model):
    """Trainable parameters (what the optimizer updates, as flowbench counts its Variables)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def init_like_flowbench(model):
    """He uniform before ReLUs, Glorot uniform for the logits, zero biases (as flowbench)."""
    layers = [m for m in model.modules() if isinstance(m, (nn.Linear, nn.Conv2d))]
    for i, layer in enumerate(layers):
        if i == len(layers) - 1:
            nn.init.xavier_uniform_(layer.weight)
        else:
            nn.init.kaiming_uniform_(layer.weight, nonlinearity="relu")
        nn.init.zeros_(layer.bias)
    return model


def mlp(spec, hidden=(256,)):
    rows, cols, channels = spec["image_shape"]
    layers, width = [nn.Flatten()], rows * cols * channels
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, spec["num_classes"]))
    return init_like_flowbench(nn.Sequential(*layers))


def lenet(spec):
    rows, cols, channels = spec["image_shape"]
    flat = ((rows // 2 - 4) // 2) * ((cols // 2 - 4) // 2) * 16
    return init_like_flowbench(nn.Sequential(
        nn.Conv2d(channels, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(flat, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, spec["num_classes"])))


def conv(cin, cout, kernel, stride=1, padding=0):
    return [nn.Conv2d(cin, cout, kernel, stride, padding), nn.ReLU(inplace=True)]


def classifier(flat, hidden, classes):
    layers, width = [nn.Flatten()], flat
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU(inplace=True)]
        width = h
    return layers + [nn.Linear(width, classes)]


def out_size(model_prefix, spec):
    """Flattened size after the convolutional part, by running it on one zero image."""
    rows, cols, channels = spec["image_shape"]
    with torch.no_grad():
        return model_prefix(torch.zeros(1, channels, rows, cols)).numel()


def alexnet(spec):
    """convnet-benchmarks AlexNet ("one weird trick" filters): conv1 11x11/4 VALID on 227."""
    channels = spec["image_shape"][2]
    features = nn.Sequential(
        *conv(channels, 64, 11, 4), nn.MaxPool2d(3, 2),
        *conv(64, 192, 5, padding=2), nn.MaxPool2d(3, 2),
        *conv(192, 384, 3, padding=1), *conv(384, 256, 3, padding=1),
        *conv(256, 256, 3, padding=1), nn.MaxPool2d(3, 2))
    return nn.Sequential(*features, *classifier(out_size(features, spec), (4096, 4096),
                                                spec["num_classes"]))


def overfeat(spec):
    """convnet-benchmarks OverFeat (fast) on 231x231."""
    channels = spec["image_shape"][2]
    features = nn.Sequential(
        *conv(channels, 96, 11, 4), nn.MaxPool2d(2, 2),
        *conv(96, 256, 5), nn.MaxPool2d(2, 2),
        *conv(256, 512, 3, padding=1), *conv(512, 1024, 3, padding=1),
        *conv(1024, 1024, 3, padding=1), nn.MaxPool2d(2, 2))
    return nn.Sequential(*features, *classifier(out_size(features, spec), (3072, 4096),
                                                spec["num_classes"]))


def vgg_a(spec):
    """VGG model A (11 weight layers): torchvision's vgg11 without dropout."""
    layers, cin = [], spec["image_shape"][2]
    for v in (64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"):
        if v == "M":
            layers.append(nn.MaxPool2d(2, 2))
        else:
            layers += conv(cin, v, 3, padding=1)
            cin = v
    features = nn.Sequential(*layers)
    return nn.Sequential(*features, *classifier(out_size(features, spec), (4096, 4096),
                                                spec["num_classes"]))


class Inception(nn.Module):
    """GoogLeNet's inception module without batch norm: 1x1; 1x1 -> 3x3; 1x1 -> 5x5;
    3x3/1 max pool -> 1x1, concatenated along channels."""

    def __init__(self, cin, o1, o3r, o3, o5r, o5, pool_proj):
        super().__init__()
        self.b1 = nn.Sequential(*conv(cin, o1, 1))
        self.b3 = nn.Sequential(*conv(cin, o3r, 1), *conv(o3r, o3, 3, padding=1))
        self.b5 = nn.Sequential(*conv(cin, o5r, 1), *conv(o5r, o5, 5, padding=2))
        self.bp = nn.Sequential(nn.MaxPool2d(3, 1, padding=1), *conv(cin, pool_proj, 1))

    def forward(self, x):
        return torch.cat([self.b1(x), self.b3(x), self.b5(x), self.bp(x)], 1)


def googlenet(spec):
    """convnet-benchmarks GoogLeNet (Inception v1) without LRN and auxiliary heads; SAME
    pooling with stride 2 is padding 1 here (the same output sizes)."""
    channels = spec["image_shape"][2]
    return nn.Sequential(
        *conv(channels, 64, 7, 2, padding=3), nn.MaxPool2d(3, 2, padding=1),
        *conv(64, 64, 1), *conv(64, 192, 3, padding=1), nn.MaxPool2d(3, 2, padding=1),
        Inception(192, 64, 96, 128, 16, 32, 32), Inception(256, 128, 128, 192, 32, 96, 64),
        nn.MaxPool2d(3, 2, padding=1),
        Inception(480, 192, 96, 208, 16, 48, 64), Inception(512, 160, 112, 224, 24, 64, 64),
        Inception(512, 128, 128, 256, 24, 64, 64), Inception(512, 112, 144, 288, 32, 64, 64),
        Inception(528, 256, 160, 320, 32, 128, 128), nn.MaxPool2d(3, 2, padding=1),
        Inception(832, 256, 160, 320, 32, 128, 128), Inception(832, 384, 192, 384, 48, 128, 128),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1024, spec["num_classes"]))


def inception_v3(spec):
    """torchvision's Inception v3 without the auxiliary head. Its batch norms are frozen at
    scale 1 (TensorFlow-slim's inception_v3 uses batch norm with a shift but no scale, which is
    where the pinned count comes from: torchvision's trainable scales add 17,216 parameters)."""
    import torchvision
    model = torchvision.models.inception_v3(num_classes=spec["num_classes"], aux_logits=False,
                                            init_weights=False)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.weight.requires_grad_(False)
    return model


def resnet50(spec):
    import torchvision
    return torchvision.models.resnet50(num_classes=spec["num_classes"])


class LstmLm(nn.Module):
    """Word language model: embedding, one LSTM layer with a projection, full softmax.

    PyTorch 1.13's nn.LSTM needs proj_size < hidden_size; with equal sizes (512 and 512) the
    projection is a bias-free Linear after the LSTM: the same parameters and FLOPs per step,
    but the recurrence reads the unprojected state."""

    def __init__(self, vocab, embedding, hidden, projection):
        super().__init__()
        self.embed = nn.Embedding(vocab, embedding)
        fused = projection < hidden
        self.lstm = nn.LSTM(embedding, hidden, batch_first=True,
                            proj_size=projection if fused else 0)
        self.project = nn.Identity() if fused else nn.Linear(hidden, projection, bias=False)
        self.softmax = nn.Linear(projection, vocab)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.softmax(self.project(out))


def lstm_lm_word(spec):
    return LstmLm(spec["num_classes"], LSTM_EMBEDDING, LSTM_HIDDEN, LSTM_PROJECTION)


BUILDERS = {
    "mlp": mlp, "lenet": lenet, "alexnet": alexnet, "overfeat": overfeat, "vgg_a": vgg_a,
    "googlenet": googlenet, "inception_v3": inception_v3, "resnet50": resnet50,
    "lstm_lm_word": lstm_lm_word,
}


def build(name, spec):
    return BUILDERS[name](spec)
