#include "datasets/dataset.h"

#include <cstring>

namespace fb::datasets {

std::vector<int64_t> Dataset::image_shape() const {
  const auto& d = images.shape().dim_sizes();
  return std::vector<int64_t>(d.begin() + 1, d.end());
}

Status Dataset::Validate() const {
  if (images.dtype() != DataType::kFloat || images.dims() != 4) {
    return InvalidArgument("dataset '", name, "': images must be float [N,rows,cols,channels], got ",
                           images.TypeAndShapeString());
  }
  if (labels.dtype() != DataType::kInt32 || labels.dims() != 1) {
    return InvalidArgument("dataset '", name, "': labels must be int32 [N], got ",
                           labels.TypeAndShapeString());
  }
  if (images.dim_size(0) != labels.dim_size(0)) {
    return InvalidArgument("dataset '", name, "': ", images.dim_size(0), " images but ",
                           labels.dim_size(0), " labels");
  }
  if (num_classes < 1) return InvalidArgument("dataset '", name, "': num_classes must be >= 1");
  const int32_t* l = labels.data<int32_t>();
  for (int64_t i = 0; i < size(); ++i) {
    if (l[i] < 0 || l[i] >= num_classes) {
      return InvalidArgument("dataset '", name, "': label ", l[i], " of example ", i,
                             " out of range [0, ", num_classes, ")");
    }
  }
  return Status::OK();
}

std::shared_ptr<const Dataset> Dataset::Slice(int64_t begin, int64_t end) const {
  auto out = std::make_shared<Dataset>();
  out->name = name;
  out->num_classes = num_classes;
  out->images = images.Slice(begin, end).DeepCopy();
  out->labels = labels.Slice(begin, end).DeepCopy();
  return out;
}

DatasetRegistry* DatasetRegistry::Global() {
  static auto* registry = new DatasetRegistry;
  return registry;
}

Status DatasetRegistry::Register(const std::string& name, std::shared_ptr<const Dataset> dataset) {
  if (!dataset) return InvalidArgument("dataset '", name, "' is null");
  RETURN_IF_ERROR(dataset->Validate());
  std::lock_guard<std::mutex> l(mu_);
  datasets_[name] = std::move(dataset);
  return Status::OK();
}

StatusOr<std::shared_ptr<const Dataset>> DatasetRegistry::Lookup(const std::string& name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = datasets_.find(name);
  if (it != datasets_.end()) return it->second;
  std::string known;
  for (const auto& [n, d] : datasets_) known += (known.empty() ? "" : ", ") + n;
  return NotFound("dataset '", name, "' is not registered (registered: ",
                  known.empty() ? "none" : known, ")");
}

void DatasetRegistry::Unregister(const std::string& name) {
  std::lock_guard<std::mutex> l(mu_);
  datasets_.erase(name);
}

}  // namespace fb::datasets
