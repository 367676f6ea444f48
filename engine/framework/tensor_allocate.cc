#include "engine/framework/tensor_allocate.h"

#include <atomic>
#include <cstdint>
#include <new>
#include <string>

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

StatusOr<size_t> TensorBytes(DataType dtype, const TensorShape& shape) {
  if (!shape.IsFullyDefined())
    return InvalidArgument("tensor shape ", shape.DebugString(), " is not fully defined");
  int64_t n = 1;
  for (int64_t d : shape.dim_sizes()) {
    if (__builtin_mul_overflow(n, d, &n))
      return InvalidArgument("tensor shape ", shape.DebugString(),
                             " has too many elements: the product of its dimensions overflows "
                             "int64");
  }
  const size_t elem = dtype == DataType::kString ? sizeof(std::string) : DataTypeSize(dtype);
  size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(n), elem, &bytes))
    return InvalidArgument("tensor ", DataTypeString(dtype), shape.DebugString(), " of ", n,
                           " elements needs more than ", SIZE_MAX, " bytes");
  return bytes;
}

Status OutOfMemory(DataType dtype, const TensorShape& shape, size_t bytes, Allocator* allocator) {
  return ResourceExhausted("OOM when allocating tensor with shape", shape.DebugString(),
                           " and type ", DataTypeString(dtype), " (", bytes,
                           " bytes) from allocator ", allocator->Name());
}

StatusOr<Tensor> AllocateTensor(DataType dtype, const TensorShape& shape, Allocator* allocator) {
  ASSIGN_OR_RETURN(size_t bytes, TensorBytes(dtype, shape));
  if (allocator == nullptr) allocator = DefaultCpuAllocator();
  // Only pooled allocators (GPU memory, pinned staging) take the proxy path: they live for the
  // whole process. A CPU device's allocator dies with its Session while fetched tensors live on,
  // and those tensors must keep exactly the constructor's behaviour; its out-of-memory is the
  // std::bad_alloc the constructor throws.
  if (dtype == DataType::kString || !allocator->IsPooled()) {
    try {
      return Tensor(dtype, shape, allocator);
    } catch (const std::bad_alloc&) {
      return OutOfMemory(dtype, shape, bytes, allocator);
    }
  }
  void* p = allocator->AllocateRaw(Allocator::kAlignment, bytes);
  if (p == nullptr) return OutOfMemory(dtype, shape, bytes, allocator);
  return Tensor(dtype, shape, new OneShotAllocator(allocator, p));
}

Allocator* BaseAllocator(const Tensor& t) {
  auto* proxy = dynamic_cast<OneShotAllocator*>(t.allocator());
  return proxy ? proxy->base() : t.allocator();
}

}  // namespace fb
