#include "datasets/synthetic.h"

#include <string>
#include <utility>

#include "datasets/shuffle.h"
#include "engine/framework/tensor_allocate.h"

namespace fb::datasets {

StatusOr<std::shared_ptr<const Dataset>> MakeSyntheticDataset(const SyntheticOptions& o) {
  if (o.num_examples < 1 || o.num_classes < 1) {
    return InvalidArgument("synthetic dataset: num_examples and num_classes must be >= 1, got ",
                           o.num_examples, " and ", o.num_classes);
  }
  if (o.image_shape.size() != 3) {
    return InvalidArgument("synthetic dataset: image_shape must be [rows, cols, channels], got ",
                           o.image_shape.size(), " dimensions");
  }
  int64_t pixels = 1;
  for (int64_t d : o.image_shape) {
    if (d < 1) return InvalidArgument("synthetic dataset: image dimensions must be >= 1, got ", d);
    pixels *= d;
  }
  SplitMix64 proto_rng(o.seed, 0);
  std::vector<float> prototypes(o.num_classes * pixels);
  for (float& v : prototypes) v = proto_rng.UniformFloat();
  SplitMix64 rng(o.seed, 1 + o.split);
  auto ds = std::make_shared<Dataset>();
  ds->name = "synthetic";
  ds->num_classes = o.num_classes;
  // A Status, not std::bad_alloc, when the examples do not fit (benchmark --batch-size 65536 of
  // 224x224x3 images: 39 GB).
  StatusOr<Tensor> images = AllocateTensor(
      DataType::kFloat,
      TensorShape({o.num_examples, o.image_shape[0], o.image_shape[1], o.image_shape[2]}),
      DefaultCpuAllocator());
  if (!images.ok())
    return images.status().WithPrefix("synthetic dataset of " + std::to_string(o.num_examples) +
                                      " examples: ");
  ds->images = std::move(*images);
  ds->labels = Tensor(DataType::kInt32, TensorShape({o.num_examples}));
  float* img = ds->images.data<float>();
  int32_t* lab = ds->labels.data<int32_t>();
  for (int64_t i = 0; i < o.num_examples; ++i) {
    lab[i] = static_cast<int32_t>(rng.Uniform(o.num_classes));
    const float* proto = prototypes.data() + lab[i] * pixels;
    for (int64_t p = 0; p < pixels; ++p) img[i * pixels + p] = 0.5f * proto[p] + 0.5f * rng.UniformFloat();
  }
  return std::shared_ptr<const Dataset>(std::move(ds));
}

}  // namespace fb::datasets
