#pragma once
// ResourceMgr: per-device state that outlives a step (whitepaper 4.7, "Containers"): Variables,
// queues. Resources live in named containers ("" is the default container) under a shared_name,
// so Sessions that share devices share them; ResetContainer drops a container's resources.
// Thread-safe.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <functional>

#include "engine/framework/tensor.h"

namespace fb {

class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  virtual std::string DebugString() const = 0;
};

// A Variable's state: a tensor guarded by a mutex (whitepaper 4.7). Updates copy on write when
// a reader still holds the buffer, so reads taken before an update never change under it.
class Var : public ResourceBase {
 public:
  std::mutex* mu() { return &mu_; }
  // Requires mu() held.
  Tensor* tensor() { return &tensor_; }
  bool is_initialized() const { return tensor_.IsInitialized(); }
  std::string DebugString() const override { return "Var " + tensor_.TypeAndShapeString(); }
  // With mu() held: makes tensor() safe to write in place (copies if the buffer is shared).
  void PrepareForWrite();
  // The Variable op's declared `shape` attr (-1 dims and unknown rank allowed), which Assign
  // with validate_shape checks before the first initialization.
  void set_declared_shape(const TensorShape& s) { declared_shape_ = s; }
  const TensorShape& declared_shape() const { return declared_shape_; }

 private:
  std::mutex mu_;
  Tensor tensor_;
  TensorShape declared_shape_ = UnknownRankShape();
};

class ResourceMgr {
 public:
  template <typename T>
  StatusOr<std::shared_ptr<T>> Lookup(const std::string& container, const std::string& name) {
    std::lock_guard<std::mutex> l(mu_);
    auto c = containers_.find(container);
    if (c != containers_.end()) {
      auto it = c->second.find(name);
      if (it != c->second.end()) {
        auto typed = std::dynamic_pointer_cast<T>(it->second);
        if (!typed) return InvalidArgument("resource '", container, "/", name, "' has another type");
        return typed;
      }
    }
    return NotFound("resource '", container, "/", name, "' not found");
  }
  template <typename T>
  StatusOr<std::shared_ptr<T>> LookupOrCreate(const std::string& container, const std::string& name,
                                              const std::function<std::shared_ptr<T>()>& create) {
    std::lock_guard<std::mutex> l(mu_);
    auto& slot = containers_[container][name];
    if (!slot) slot = create();
    auto typed = std::dynamic_pointer_cast<T>(slot);
    if (!typed) return InvalidArgument("resource '", container, "/", name, "' has another type");
    return typed;
  }
  // Removes every resource of `container`; OK if it does not exist.
  void Cleanup(const std::string& container);
  std::vector<std::string> ContainerNames() const;
  // (container, name) pairs of every Var, for checkpoints.
  std::vector<std::pair<std::string, std::string>> ListResources(const std::string& container) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::map<std::string, std::shared_ptr<ResourceBase>>> containers_;
};

}  // namespace fb
