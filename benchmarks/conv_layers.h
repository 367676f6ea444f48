#pragma once
// Representative convolution layers of the convnet models (experiments/models/: AlexNet OWT,
// VGG-11, GoogLeNet, Inception-v3, ResNet-50) at their benchmark batch sizes, shared by
// benchmarks/conv_bench.cc. benchmarks/conv_torch.py holds the same table for PyTorch; keep the
// two in step.
#include <cstdint>
#include <string>

namespace fb::bench {

struct ConvLayer {
  const char* name;
  int64_t batch, height, width, in_ch, kernel, out_ch, stride;
  const char* padding;  // "SAME" or "VALID"

  int64_t OutRows() const { return OutDim(height); }
  int64_t OutCols() const { return OutDim(width); }
  // 2 * multiply-adds of the forward pass (each backprop does as many).
  double Flops() const {
    return 2.0 * batch * OutRows() * OutCols() * kernel * kernel * in_ch * out_ch;
  }
  // The forward pass as one GEMM [m, k] x [k, n] (im2col): m output positions, k patch values.
  int64_t GemmM() const { return batch * OutRows() * OutCols(); }
  int64_t GemmK() const { return kernel * kernel * in_ch; }

 private:
  int64_t OutDim(int64_t in) const {
    return std::string(padding) == "SAME" ? (in + stride - 1) / stride
                                          : (in - kernel) / stride + 1;
  }
};

inline constexpr ConvLayer kConvLayers[] = {
    {"lenet_conv1", 64, 28, 28, 1, 5, 6, 1, "SAME"},
    {"lenet_conv2", 64, 14, 14, 6, 5, 16, 1, "VALID"},
    {"alexnet_conv1", 32, 227, 227, 3, 11, 64, 4, "VALID"},
    {"alexnet_conv2", 32, 27, 27, 64, 5, 192, 1, "SAME"},
    {"alexnet_conv3", 32, 13, 13, 192, 3, 384, 1, "SAME"},
    {"alexnet_conv4", 32, 13, 13, 384, 3, 256, 1, "SAME"},
    {"vgg_conv1", 8, 224, 224, 3, 3, 64, 1, "SAME"},
    {"vgg_conv2", 8, 112, 112, 64, 3, 128, 1, "SAME"},
    {"vgg_conv3", 8, 56, 56, 128, 3, 256, 1, "SAME"},
    {"vgg_conv4", 8, 56, 56, 256, 3, 256, 1, "SAME"},
    {"googlenet_3a_1x1", 16, 28, 28, 192, 1, 64, 1, "SAME"},
    {"googlenet_4a_1x1", 16, 14, 14, 480, 1, 192, 1, "SAME"},
    {"inception3_35_1x1", 8, 35, 35, 288, 1, 64, 1, "SAME"},
    {"inception3_17_1x1", 8, 17, 17, 768, 1, 192, 1, "SAME"},
    {"resnet_conv1", 8, 224, 224, 3, 7, 64, 2, "SAME"},
    {"resnet_56_1x1_in", 8, 56, 56, 256, 1, 64, 1, "SAME"},
    {"resnet_56_3x3", 8, 56, 56, 64, 3, 64, 1, "SAME"},
    {"resnet_56_1x1_out", 8, 56, 56, 64, 1, 256, 1, "SAME"},
    {"resnet_28_1x1_s2", 8, 56, 56, 256, 1, 512, 2, "SAME"},
};

}  // namespace fb::bench
