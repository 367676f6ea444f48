#include "engine/framework/tensor_allocate.h"

namespace fb {
namespace {

// Hands out one buffer that was already allocated from `base`, and frees it to `base` once.
// Deletes itself after that free (the TensorBuffer's destructor is its last user).
class OneShotAllocator : public Allocator {
 public:
  OneShotAllocator(Allocator* base, void* ptr) : base_(base), ptr_(ptr) {}
  std::string Name() const override { return base_->Name(); }
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    void* p = ptr_;
    ptr_ = nullptr;
    FB_CHECK(p != nullptr) << "one-shot allocator of " << base_->Name() << " used twice";
    return p;
  }
  void DeallocateRaw(void* ptr, size_t bytes) override {
    base_->DeallocateRaw(ptr, bytes);
    delete this;
  }
  bool IsHostMemory() const override { return base_->IsHostMemory(); }
  Allocator* base() const { return base_; }

 private:
  Allocator* base_;
  void* ptr_;
};

}  // namespace

StatusOr<Tensor> AllocateTensor(DataType dtype, const TensorShape& shape, Allocator* allocator) {
  if (!shape.IsFullyDefined())
    return InvalidArgument("tensor shape ", shape.DebugString(), " is not fully defined");
  if (allocator == nullptr) allocator = DefaultCpuAllocator();
  if (dtype == DataType::kString) return Tensor(dtype, shape, allocator);
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * DataTypeSize(dtype);
  void* p = allocator->AllocateRaw(Allocator::kAlignment, bytes);
  if (p == nullptr)
    return ResourceExhausted("out of memory allocating ", DataTypeString(dtype),
                             shape.DebugString(), " (", bytes, " bytes) from ", allocator->Name());
  return Tensor(dtype, shape, new OneShotAllocator(allocator, p));
}

Allocator* BaseAllocator(const Tensor& t) {
  auto* proxy = dynamic_cast<OneShotAllocator*>(t.allocator());
  return proxy ? proxy->base() : t.allocator();
}

}  // namespace fb
