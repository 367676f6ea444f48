#include "experiments/models/feature_map.h"

#include "engine/client/array_ops.h"
#include "engine/client/nn_ops.h"

namespace fb::experiments {
namespace {

// The map after a window of `window`/`stride`, or records InvalidArgument on `s` naming layer
// `name` when the window does not fit (returns false; nothing should be built then).
bool Shrink(const Scope& s, const std::string& name, const FeatureMap& in, int64_t window,
            int64_t stride, const std::string& padding, FeatureMap* out) {
  if (!s.ok()) return false;
  out->rows = WindowOutputSize(in.rows, window, stride, padding);
  out->cols = WindowOutputSize(in.cols, window, stride, padding);
  out->channels = in.channels;
  if (out->rows >= 1 && out->cols >= 1) return true;
  s.UpdateStatus(InvalidArgument("layer '", s.prefix(), name, "': input ", in.rows, "x", in.cols,
                                 " is too small for a ", window, "x", window, " window, stride ",
                                 stride, ", ", padding,
                                 " padding (the image is smaller than the "
                                 "architecture accepts)"));
  return false;
}

}  // namespace

int64_t WindowOutputSize(int64_t in, int64_t window, int64_t stride, const std::string& padding) {
  if (in < 1 || stride < 1) return 0;
  if (padding == "SAME") return (in + stride - 1) / stride;
  if (in < window) return 0;
  return (in - window) / stride + 1;
}

FeatureMap ImageFeatures(Output images, const std::vector<int64_t>& image_shape) {
  FeatureMap f;
  f.x = images;
  if (image_shape.size() == 3) {
    f.rows = image_shape[0];
    f.cols = image_shape[1];
    f.channels = image_shape[2];
  }
  return f;
}

FeatureMap ConvRelu(const Scope& s, VariableStore* vars, const std::string& name,
                    const FeatureMap& in, int64_t kernel, int64_t stride, int64_t filters,
                    const std::string& padding) {
  FeatureMap out;
  if (!Shrink(s, name, in, kernel, stride, padding, &out)) return out;
  out.channels = filters;
  out.x =
      Conv2DLayer(s, vars, name, in.x,
                  Conv2DSpec{kernel, kernel, stride, stride, in.channels, filters, padding, true},
                  Activation::kRelu);
  return out;
}

FeatureMap MaxPool(const Scope& s, const std::string& name, const FeatureMap& in, int64_t window,
                   int64_t stride, const std::string& padding) {
  FeatureMap out;
  if (!Shrink(s, name, in, window, stride, padding, &out)) return out;
  out.x = ops::MaxPool(s.WithOpName(name), in.x, {window, window}, {stride, stride}, padding);
  return out;
}

FeatureMap AvgPool(const Scope& s, const std::string& name, const FeatureMap& in, int64_t window,
                   int64_t stride, const std::string& padding) {
  FeatureMap out;
  if (!Shrink(s, name, in, window, stride, padding, &out)) return out;
  out.x = ops::AvgPool(s.WithOpName(name), in.x, {window, window}, {stride, stride}, padding);
  return out;
}

FeatureMap ConcatChannels(const Scope& s, const std::string& name,
                          const std::vector<FeatureMap>& parts) {
  FeatureMap out;
  if (!s.ok() || parts.empty()) return out;
  out.rows = parts[0].rows;
  out.cols = parts[0].cols;
  std::vector<Output> values;
  for (const FeatureMap& p : parts) {
    if (p.rows != out.rows || p.cols != out.cols) {
      s.UpdateStatus(InvalidArgument("concat '", s.prefix(), name, "': branches of sizes ",
                                     out.rows, "x", out.cols, " and ", p.rows, "x", p.cols));
      return FeatureMap{};
    }
    out.channels += p.channels;
    values.push_back(p.x);
  }
  out.x = ops::Concat(s.WithOpName(name), values, 3);
  return out;
}

Output Flatten(const Scope& s, const std::string& name, const FeatureMap& in, int64_t* width) {
  *width = in.rows * in.cols * in.channels;
  if (!s.ok()) return Output();
  return ops::Reshape(s.WithOpName(name), in.x, {int64_t{-1}, *width});
}

Output FullyConnectedHead(const Scope& s, VariableStore* vars, const FeatureMap& in,
                          int64_t fc6_units, int64_t fc7_units, int64_t num_classes) {
  int64_t width = 0;
  Output flat = Flatten(s, "flatten", in, &width);
  if (!s.ok()) return Output();
  Output h = Dense(s, vars, "fc6", flat, width, fc6_units, Activation::kRelu);
  h = Dense(s, vars, "fc7", h, fc6_units, fc7_units, Activation::kRelu);
  return Dense(s, vars, "logits", h, fc7_units, num_classes, Activation::kNone);
}

}  // namespace fb::experiments
