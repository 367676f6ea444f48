// Inception-v3 (Szegedy, Vanhoucke, Ioffe, Shlens and Wojna, "Rethinking the Inception
// Architecture for Computer Vision", CVPR 2016) as torchvision 0.14's `inception_v3(aux_logits=
// False, transform_input=False)`, the network of the TensorFlow OSDI 2016 benchmarks (docs:
// /work/shared/papers/osdi2016-benchmarks.md section 3). Images NHWC [batch, 299, 299, 3].
//
// Every convolution is torchvision's BasicConv2d: Conv2D without bias, batch normalization
// (epsilon 0.001; trainable beta, moving mean/variance) and ReLU. The batch normalization has
// no gamma, as TensorFlow's Inception-v3 (TF-slim batch_norm scale=False, Keras): 23,817,352
// trainable parameters; torchvision's gamma (17,216 more) would be redundant before the ReLU
// and the next convolution. Layer and block names are
// torchvision's (Conv2d_1a_3x3, Mixed_5b/branch5x5_2, ...); block outputs are "<block>/concat".
//
//   stem      Conv2d_1a_3x3 3x3/2 ->32 [149], 2a 3x3 ->32 [147], 2b 3x3 pad 1 ->64 [147],
//             MaxPool_3a_3x3 3/2 [73], 3b 1x1 ->80, 4a 3x3 ->192 [71], MaxPool_5a_3x3 3/2 [35]
//   Mixed_5b/5c/5d  InceptionA, [35] x 256/288/288 (pool features 32/64/64)
//   Mixed_6a        InceptionB, [17] x 768
//   Mixed_6b..6e    InceptionC, [17] x 768 (7x7 width 128/160/160/192)
//   Mixed_7a        InceptionD, [8] x 1280
//   Mixed_7b/7c     InceptionE, [8] x 2048
//   avgpool (global mean over rows and cols) -> [2048], fc 2048 -> num_classes (with bias).
//
// Padding: torchvision pads a stride-1 k x k conv by k/2 and its 1x7 / 7x1 (1x3 / 3x1) convs by
// (0,3) / (3,0) ((0,1) / (1,0)); all its stride-2 convs and max pools are unpadded. For stride 1
// and odd kernels that symmetric padding is exactly TensorFlow's "SAME", so SAME and VALID
// reproduce every torchvision conv. The 3x3/1 average pools of the A, C and E blocks are an
// explicit zero Pad and a VALID AvgPool: torchvision's avg_pool2d (count_include_pad=True)
// divides border windows by 9, where AvgPool SAME (TensorFlow, slim) would divide by the number
// of in-image values.
//
// Differences from torchvision, none of which changes a shape:
//   - no gamma in the batch normalizations (above; torchvision's would be fixed at 1);
//   - dropout (p = 0.5 before fc in torchvision) is omitted, as in the benchmark runs;
//   - weights are He uniform (experiments/models/layers.h), not torchvision's truncated normal.
// tests/experiments/inception_v3_torchvision_test.cc loads the weights into torchvision (gamma 1)
// and compares logits, gradients and moving statistics.
//
// Sizes: 94 BN-convs, 23,817,352 trainable parameters (conv weights 21,751,136 + beta 17,216 + fc
// 2,049,000) and 34,432 moving statistics: 23,851,784 in all (Keras' InceptionV3 counts). The
// smallest image is 75x75
// (Mixed_7a reduces 3x3 to 1x1); smaller ones are InvalidArgument.
#include <string>
#include <vector>

#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "experiments/models/batch_norm.h"
#include "experiments/models/layers.h"
#include "experiments/models/models.h"

namespace fb::experiments {
namespace {

constexpr int64_t kMinImageSize = 75;
// torchvision's BasicConv2d: BatchNorm2d(eps=0.001), default momentum 0.1 (= decay 0.9).
const BatchNormSpec kBasicConvBatchNorm{/*epsilon=*/0.001, /*decay=*/0.9, /*scale=*/false};

// A feature map under construction: the tensor and its channel count (what the next conv's
// filter needs).
struct Features {
  Output x;
  int64_t channels = 0;
};

// One BasicConv2d geometry: kernel, stride, padding ("SAME" = torchvision's symmetric k/2 padding
// at stride 1) and output channels.
struct ConvGeom {
  int64_t kernel_rows, kernel_cols;
  int64_t filters;
  int64_t stride = 1;
  const char* padding = "SAME";
};

// torchvision's BasicConv2d: Conv2D (no bias, weights "<name>/weights" HWIO, He uniform) ->
// batch normalization "<name>/bn" -> ReLU.
Features BasicConv(const Scope& s, VariableStore* vars, const std::string& name, Features in,
                   const ConvGeom& g) {
  Scope cs = s.NewSubScope(name);
  const int64_t area = g.kernel_rows * g.kernel_cols;
  Output w = vars->Weight(cs, "weights", {g.kernel_rows, g.kernel_cols, in.channels, g.filters},
                          area * in.channels, area * g.filters, InitKind::kHeUniform);
  Output y = ops::Conv2D(cs.WithOpName("Conv2D"), in.x, w, {g.stride, g.stride}, g.padding);
  return {BatchNorm(cs, vars, "bn", y, g.filters, Activation::kRelu, kBasicConvBatchNorm),
          g.filters};
}

// torchvision's max_pool2d(3, stride=2), unpadded, named `name`.
Features MaxPool3x3(const Scope& s, const std::string& name, Features in) {
  return {ops::MaxPool(s.WithOpName(name), in.x, {3, 3}, {2, 2}, "VALID"), in.channels};
}

// torchvision's avg_pool2d(3, stride=1, padding=1) with its default count_include_pad=True:
// zero padding ("avg_pool/pad") and a VALID AvgPool ("avg_pool"), so a border window divides by 9
// as torchvision does (AvgPool SAME would divide by the in-image count, 4 or 6).
Features AvgPool3x3(const Scope& s, Features in) {
  Output padded = ops::Pad(s.WithOpName("avg_pool/pad"), in.x, {{0, 0}, {1, 1}, {1, 1}, {0, 0}});
  return {ops::AvgPool(s.WithOpName("avg_pool"), padded, {3, 3}, {1, 1}, "VALID"), in.channels};
}

// Concatenation of the branches along channels, named "<block>/concat".
Features Join(const Scope& block, const std::vector<Features>& branches) {
  std::vector<Output> xs;
  int64_t channels = 0;
  for (const Features& b : branches) {
    xs.push_back(b.x);
    channels += b.channels;
  }
  return {ops::Concat(block.WithOpName("concat"), xs, 3), channels};
}

// BasicConvs applied in order, each given as (name, geometry).
Features Chain(const Scope& s, VariableStore* vars, Features x,
               const std::vector<std::pair<std::string, ConvGeom>>& layers) {
  for (const auto& [name, geom] : layers) x = BasicConv(s, vars, name, x, geom);
  return x;
}

// InceptionA: 1x1 64 | 1x1 48 -> 5x5 64 | 1x1 64 -> 3x3 96 -> 3x3 96 | avgpool -> 1x1 pool.
Features InceptionA(const Scope& root, VariableStore* vars, const std::string& name, Features x,
                    int64_t pool_features) {
  Scope s = root.NewSubScope(name);
  Features b1 = BasicConv(s, vars, "branch1x1", x, {1, 1, 64});
  Features b5 = Chain(s, vars, x, {{"branch5x5_1", {1, 1, 48}}, {"branch5x5_2", {5, 5, 64}}});
  Features b3 = Chain(s, vars, x,
                      {{"branch3x3dbl_1", {1, 1, 64}},
                       {"branch3x3dbl_2", {3, 3, 96}},
                       {"branch3x3dbl_3", {3, 3, 96}}});
  Features bp = BasicConv(s, vars, "branch_pool", AvgPool3x3(s, x), {1, 1, pool_features});
  return Join(s, {b1, b5, b3, bp});
}

// InceptionB (grid reduction 35 -> 17): 3x3/2 384 | 1x1 64 -> 3x3 96 -> 3x3/2 96 | maxpool 3/2.
Features InceptionB(const Scope& root, VariableStore* vars, const std::string& name, Features x) {
  Scope s = root.NewSubScope(name);
  Features b3 = BasicConv(s, vars, "branch3x3", x, {3, 3, 384, 2, "VALID"});
  Features bd = Chain(s, vars, x,
                      {{"branch3x3dbl_1", {1, 1, 64}},
                       {"branch3x3dbl_2", {3, 3, 96}},
                       {"branch3x3dbl_3", {3, 3, 96, 2, "VALID"}}});
  Features bp = MaxPool3x3(s, "max_pool", x);
  return Join(s, {b3, bd, bp});
}

// InceptionC (factorized 7x7, width c7): 1x1 192 | 1x1 c7 -> 1x7 c7 -> 7x1 192 |
// 1x1 c7 -> 7x1 c7 -> 1x7 c7 -> 7x1 c7 -> 1x7 192 | avgpool -> 1x1 192.
Features InceptionC(const Scope& root, VariableStore* vars, const std::string& name, Features x,
                    int64_t c7) {
  Scope s = root.NewSubScope(name);
  Features b1 = BasicConv(s, vars, "branch1x1", x, {1, 1, 192});
  Features b7 = Chain(s, vars, x,
                      {{"branch7x7_1", {1, 1, c7}},
                       {"branch7x7_2", {1, 7, c7}},
                       {"branch7x7_3", {7, 1, 192}}});
  Features bd = Chain(s, vars, x,
                      {{"branch7x7dbl_1", {1, 1, c7}},
                       {"branch7x7dbl_2", {7, 1, c7}},
                       {"branch7x7dbl_3", {1, 7, c7}},
                       {"branch7x7dbl_4", {7, 1, c7}},
                       {"branch7x7dbl_5", {1, 7, 192}}});
  Features bp = BasicConv(s, vars, "branch_pool", AvgPool3x3(s, x), {1, 1, 192});
  return Join(s, {b1, b7, bd, bp});
}

// InceptionD (grid reduction 17 -> 8): 1x1 192 -> 3x3/2 320 |
// 1x1 192 -> 1x7 192 -> 7x1 192 -> 3x3/2 192 | maxpool 3/2.
Features InceptionD(const Scope& root, VariableStore* vars, const std::string& name, Features x) {
  Scope s = root.NewSubScope(name);
  Features b3 = Chain(s, vars, x,
                      {{"branch3x3_1", {1, 1, 192}}, {"branch3x3_2", {3, 3, 320, 2, "VALID"}}});
  Features b7 = Chain(s, vars, x,
                      {{"branch7x7x3_1", {1, 1, 192}},
                       {"branch7x7x3_2", {1, 7, 192}},
                       {"branch7x7x3_3", {7, 1, 192}},
                       {"branch7x7x3_4", {3, 3, 192, 2, "VALID"}}});
  Features bp = MaxPool3x3(s, "max_pool", x);
  return Join(s, {b3, b7, bp});
}

// The two parallel 1x3 and 3x1 convs (width 384) an InceptionE branch ends in, "<prefix>a" and
// "<prefix>b", concatenated as "<prefix>/concat".
Features SplitEnd(const Scope& s, VariableStore* vars, const std::string& prefix, Features x) {
  Features a = BasicConv(s, vars, prefix + "a", x, {1, 3, 384});
  Features b = BasicConv(s, vars, prefix + "b", x, {3, 1, 384});
  return {ops::Concat(s.WithOpName(prefix + "/concat"), {a.x, b.x}, 3), a.channels + b.channels};
}

// InceptionE: 1x1 320 | 1x1 384 -> (1x3 384, 3x1 384) | 1x1 448 -> 3x3 384 -> (1x3 384,
// 3x1 384) | avgpool -> 1x1 192.
Features InceptionE(const Scope& root, VariableStore* vars, const std::string& name, Features x) {
  Scope s = root.NewSubScope(name);
  Features b1 = BasicConv(s, vars, "branch1x1", x, {1, 1, 320});
  Features b3 = SplitEnd(s, vars, "branch3x3_2", BasicConv(s, vars, "branch3x3_1", x, {1, 1, 384}));
  Features bd = Chain(s, vars, x,
                      {{"branch3x3dbl_1", {1, 1, 448}}, {"branch3x3dbl_2", {3, 3, 384}}});
  bd = SplitEnd(s, vars, "branch3x3dbl_3", bd);
  Features bp = BasicConv(s, vars, "branch_pool", AvgPool3x3(s, x), {1, 1, 192});
  return Join(s, {b1, b3, bd, bp});
}

// 299 -> 35: three 3x3 convs, maxpool, 1x1 and 3x3 convs, maxpool.
Features Stem(const Scope& s, VariableStore* vars, Features x) {
  x = Chain(s, vars, x,
            {{"Conv2d_1a_3x3", {3, 3, 32, 2, "VALID"}},
             {"Conv2d_2a_3x3", {3, 3, 32, 1, "VALID"}},
             {"Conv2d_2b_3x3", {3, 3, 64}}});
  x = MaxPool3x3(s, "MaxPool_3a_3x3", x);
  x = Chain(s, vars, x,
            {{"Conv2d_3b_1x1", {1, 1, 80, 1, "VALID"}},
             {"Conv2d_4a_3x3", {3, 3, 192, 1, "VALID"}}});
  return MaxPool3x3(s, "MaxPool_5a_3x3", x);
}

Output InceptionV3Forward(const Scope& s, Output images, const ModelOptions& o,
                          VariableStore* vars) {
  const int64_t rows = o.image_shape[0], cols = o.image_shape[1];
  if (rows < kMinImageSize || cols < kMinImageSize) {
    s.UpdateStatus(InvalidArgument("model inception_v3: images must be at least ", kMinImageSize,
                                   "x", kMinImageSize, " (Mixed_7a reduces a 3x3 grid to 1x1), "
                                   "got ", rows, "x", cols));
    return Output();
  }
  Features x = Stem(s, vars, {images, o.image_shape[2]});
  x = InceptionA(s, vars, "Mixed_5b", x, 32);
  x = InceptionA(s, vars, "Mixed_5c", x, 64);
  x = InceptionA(s, vars, "Mixed_5d", x, 64);
  x = InceptionB(s, vars, "Mixed_6a", x);
  x = InceptionC(s, vars, "Mixed_6b", x, 128);
  x = InceptionC(s, vars, "Mixed_6c", x, 160);
  x = InceptionC(s, vars, "Mixed_6d", x, 160);
  x = InceptionC(s, vars, "Mixed_6e", x, 192);
  x = InceptionD(s, vars, "Mixed_7a", x);
  x = InceptionE(s, vars, "Mixed_7b", x);
  x = InceptionE(s, vars, "Mixed_7c", x);
  // Global average pooling (torchvision's AdaptiveAvgPool2d((1, 1)) and flatten); no dropout.
  Output pooled = ops::Mean(s.WithOpName("avgpool"), x.x, std::vector<int>{1, 2});
  return Dense(s, vars, "fc", pooled, x.channels, o.num_classes, Activation::kNone);
}

FB_REGISTER_MODEL("inception_v3", InceptionV3Forward, ModelDefaults{{299, 299, 3}, 1000});

}  // namespace
}  // namespace fb::experiments
