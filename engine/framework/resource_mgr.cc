#include "engine/framework/resource_mgr.h"

namespace fb {

void Var::PrepareForWrite() {
  if (tensor_.IsInitialized() && tensor_.BufferRefCount() > 1) tensor_ = tensor_.DeepCopy(tensor_.allocator());
}

void ResourceMgr::Cleanup(const std::string& container) {
  std::lock_guard<std::mutex> l(mu_);
  containers_.erase(container);
}

std::vector<std::string> ResourceMgr::ContainerNames() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> v;
  for (const auto& [name, c] : containers_) v.push_back(name);
  return v;
}

std::vector<std::pair<std::string, std::string>> ResourceMgr::ListResources(
    const std::string& container) const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::pair<std::string, std::string>> v;
  auto c = containers_.find(container);
  if (c == containers_.end()) return v;
  for (const auto& [name, r] : c->second) v.emplace_back(container, name);
  return v;
}

}  // namespace fb
