#pragma once
// Convolutional stacks whose spatial size is known while the graph is built, so that the
// flatten before the fully connected layers follows from the image shape (a test may build a
// model on a smaller image than the paper's, where the architecture allows it). Each helper
// builds the op and applies TensorFlow's output-size rule to the tracked size. When a window no
// longer fits (the image is too small for the architecture), the helper records
// InvalidArgument on the scope naming the layer, the size it got and the window, builds nothing
// more, and later helpers are skipped (Scope errors stick; BuildModel returns the error).
// Layout NHWC float.
#include <string>
#include <vector>

#include "experiments/models/layers.h"

namespace fb::experiments {

// Output length along one dimension of a convolution or pooling window of `window` and
// `stride` (TensorFlow, tf.nn.conv2d): SAME ceil(in / stride); VALID ceil((in - window + 1) /
// stride), 0 when the window does not fit. Returns 0 for in < 1.
int64_t WindowOutputSize(int64_t in, int64_t window, int64_t stride, const std::string& padding);

// A feature map [batch, rows, cols, channels] and its known spatial size and depth.
struct FeatureMap {
  Output x;
  int64_t rows = 0, cols = 0, channels = 0;
};

// The images of a model as a FeatureMap of image_shape [rows, cols, channels].
FeatureMap ImageFeatures(Output images, const std::vector<int64_t>& image_shape);

// Conv2D with bias and ReLU (Conv2DLayer, square kernel and stride): "<name>/weights" HWIO
// [kernel, kernel, in.channels, filters], "<name>/biases" [filters].
FeatureMap ConvRelu(const Scope& s, VariableStore* vars, const std::string& name,
                    const FeatureMap& in, int64_t kernel, int64_t stride, int64_t filters,
                    const std::string& padding);

// Square max / average pooling named `name`.
FeatureMap MaxPool(const Scope& s, const std::string& name, const FeatureMap& in, int64_t window,
                   int64_t stride, const std::string& padding);
FeatureMap AvgPool(const Scope& s, const std::string& name, const FeatureMap& in, int64_t window,
                   int64_t stride, const std::string& padding);

// Concatenation along channels of maps of one spatial size (an inception module's branches).
// InvalidArgument on the scope naming `name` when the sizes differ.
FeatureMap ConcatChannels(const Scope& s, const std::string& name,
                          const std::vector<FeatureMap>& parts);

// Reshape to [batch, rows * cols * channels] ("<name>"); *width gets rows * cols * channels.
Output Flatten(const Scope& s, const std::string& name, const FeatureMap& in, int64_t* width);

// The fully connected head of AlexNet, Overfeat and VGG: Flatten ("flatten"), Dense + ReLU "fc6"
// of fc6_units and "fc7" of fc7_units, Dense "logits" of num_classes. Returns the logits
// [batch, num_classes], or Output() with the error in `s` (e.g. an image too small to flatten).
Output FullyConnectedHead(const Scope& s, VariableStore* vars, const FeatureMap& in,
                          int64_t fc6_units, int64_t fc7_units, int64_t num_classes);

}  // namespace fb::experiments
