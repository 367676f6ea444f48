#include "engine/framework/tensor_allocate.h"

#include <atomic>

namespace fb {
namespace {

// Hands out first the buffer that was already allocated from `base`, then (for copies made with
// tensor.allocator(), as Var::PrepareForWrite does) fresh buffers from `base`; frees everything
// to `base` and deletes itself when its last buffer is freed.
class OneShotAllocator : public Allocator {
 public:
  OneShotAllocator(Allocator* base, void* ptr) : base_(base), ptr_(ptr) {}
  std::string Name() const override { return base_->Name(); }
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    void* p = ptr_.exchange(nullptr);
    if (p == nullptr) p = base_->AllocateRaw(alignment, bytes);
    if (p != nullptr) live_.fetch_add(1);
    return p;
  }
  void DeallocateRaw(void* ptr, size_t bytes) override {
    if (ptr == nullptr) return;
    base_->DeallocateRaw(ptr, bytes);
    if (live_.fetch_sub(1) == 1) delete this;
  }
  bool IsHostMemory() const override { return base_->IsHostMemory(); }
  Allocator* base() const { return base_; }

 private:
  Allocator* base_;
  std::atomic<void*> ptr_;
  std::atomic<int64_t> live_{0};
};

}  // namespace

StatusOr<Tensor> AllocateTensor(DataType dtype, const TensorShape& shape, Allocator* allocator) {
  if (!shape.IsFullyDefined())
    return InvalidArgument("tensor shape ", shape.DebugString(), " is not fully defined");
  if (allocator == nullptr) allocator = DefaultCpuAllocator();
  // Only pooled allocators (GPU memory, pinned staging) take the proxy path: they live for the
  // whole process. A CPU device's allocator dies with its Session while fetched tensors live on,
  // and those tensors must keep exactly the constructor's behaviour.
  if (dtype == DataType::kString || !allocator->IsPooled())
    return Tensor(dtype, shape, allocator);
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
