// ResNet-50 v1 (He, Zhang, Ren and Sun, CVPR 2016) as torchvision 0.14 builds it
// (torchvision/models/resnet.py, resnet50: Bottleneck, layers [3, 4, 6, 3], the "v1.5" variant
// that puts a stage's stride 2 in the 3x3 conv of its first block):
//   conv1 7x7/2 3->64, bn1, ReLU; maxpool 3x3/2                     224 -> 112 -> 56
//   layer1..layer4: [3, 4, 6, 3] bottlenecks of width [64, 128, 256, 512], output 4 * width;
//     bottleneck: conv1 1x1 -> width, bn1, ReLU; conv2 3x3/s -> width, bn2, ReLU;
//                 conv3 1x1 -> 4 * width, bn3; + shortcut; ReLU
//     shortcut: identity, or (first block of a stage) downsample conv 1x1/s + bn
//     s = 2 in the first block of layer2..layer4                    56 -> 28 -> 14 -> 7
//   global average pool, fc 2048 -> num_classes.
// Every conv has no bias and is followed by batch normalization (experiments/models/batch_norm.h,
// epsilon 1e-5, decay 0.9 as torchvision's BatchNorm2d). Trainable parameters at 1000 classes:
// 25,557,032 (torchvision's num_params); with the moving statistics 25,610,152.
// Padding: torchvision pads symmetrically (3 for the 7x7 conv, 1 for the 3x3 convs and the
// max-pool), where TensorFlow's SAME at stride 2 puts the extra row/column after. Output shapes
// agree, but the windows would be shifted by one pixel, so the strided 7x7 and 3x3 convs and
// the max-pool pad explicitly (Pad) and use VALID, computing exactly torchvision's windows; the
// max-pool's zero padding equals PyTorch's -inf padding because it follows a ReLU. Stride-1 3x3
// convs use SAME (symmetric there) and 1x1 convs VALID.
// Weights: He uniform for the convs (fan_in = kh * kw * in), Glorot uniform for fc, zero fc
// bias (experiments/models/layers.h), not torchvision's kaiming_normal(fan_out).
// Checked against torchvision 0.14 with the same weights (tests/experiments/
// resnet_torchvision_test.cc): logits, every gradient and the moving statistics agree to float
// rounding. Variable names map to torchvision's state_dict: "layer1/0/conv1/weights" is
// layer1.0.conv1.weight (HWIO vs OIHW), "<bn>/gamma|beta|moving_mean|moving_variance" are
// weight|bias|running_mean|running_var, "downsample/conv|bn" are downsample.0|1, fc/weights is
// fc.weight transposed.
#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "experiments/models/batch_norm.h"
#include "experiments/models/models.h"

namespace fb::experiments {
namespace {

// conv (kernel x kernel, stride, no bias) + batch norm "<bn>" [+ ReLU]. A strided conv with a
// kernel > 1 pads (kernel - 1) / 2 on every side explicitly and runs VALID (torchvision's
// symmetric padding); a stride-1 conv uses SAME.
Output ConvBn(const Scope& s, VariableStore* vars, const std::string& conv, const std::string& bn,
              Output x, int64_t kernel, int64_t stride, int64_t in, int64_t out,
              Activation activation) {
  Scope cs = s.NewSubScope(conv);
  Output w = vars->Weight(cs, "weights", {kernel, kernel, in, out}, kernel * kernel * in,
                          kernel * kernel * out, InitKind::kHeUniform);
  std::string padding = "SAME";
  if (stride > 1 && kernel > 1) {
    const int64_t p = (kernel - 1) / 2;
    x = ops::Pad(cs.WithOpName("pad"), x, {{0, 0}, {p, p}, {p, p}, {0, 0}});
    padding = "VALID";
  }
  Output y = ops::Conv2D(cs.WithOpName("Conv2D"), x, w, {stride, stride}, padding);
  return BatchNorm(s, vars, bn, y, out, activation);
}

// One bottleneck block "<name>" of `width` (output 4 * width) on x with `in` channels.
Output Bottleneck(const Scope& s, VariableStore* vars, const std::string& name, Output x,
                  int64_t in, int64_t width, int64_t stride) {
  Scope bs = s.NewSubScope(name);
  const int64_t out = 4 * width;
  Output y = ConvBn(bs, vars, "conv1", "bn1", x, 1, 1, in, width, Activation::kRelu);
  y = ConvBn(bs, vars, "conv2", "bn2", y, 3, stride, width, width, Activation::kRelu);
  y = ConvBn(bs, vars, "conv3", "bn3", y, 1, 1, width, out, Activation::kNone);
  Output shortcut = x;
  if (stride != 1 || in != out) {
    Scope ds = bs.NewSubScope("downsample");
    shortcut = ConvBn(ds, vars, "conv", "bn", x, 1, stride, in, out, Activation::kNone);
  }
  return ops::Relu(bs.WithOpName("relu"), ops::Add(bs.WithOpName("add"), y, shortcut));
}

Output ResNet50Forward(const Scope& s, Output images, const ModelOptions& o, VariableStore* vars) {
  const int64_t channels = o.image_shape[2];
  Output x = ConvBn(s, vars, "conv1", "bn1", images, 7, 2, channels, 64, Activation::kRelu);
  x = ops::Pad(s.WithOpName("maxpool/pad"), x, {{0, 0}, {1, 1}, {1, 1}, {0, 0}});
  x = ops::MaxPool(s.WithOpName("maxpool"), x, {3, 3}, {2, 2}, "VALID");
  const int64_t blocks[] = {3, 4, 6, 3};
  int64_t in = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t width = int64_t{64} << stage;
    Scope ls = s.NewSubScope("layer" + std::to_string(stage + 1));
    for (int64_t b = 0; b < blocks[stage]; ++b) {
      const int64_t stride = (stage > 0 && b == 0) ? 2 : 1;
      x = Bottleneck(ls, vars, std::to_string(b), x, in, width, stride);
      in = 4 * width;
    }
  }
  x = ops::Mean(s.WithOpName("avgpool"), x, std::vector<int>{1, 2});
  return Dense(s, vars, "fc", x, in, o.num_classes, Activation::kNone);
}

FB_REGISTER_MODEL("resnet50", ResNet50Forward, ModelDefaults{{224, 224, 3}, 1000});

}  // namespace
}  // namespace fb::experiments
