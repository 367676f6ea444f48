#pragma once
// Allocating a tensor without aborting when its allocator is out of memory: the Tensor
// constructor throws std::bad_alloc when its allocator refuses (Device::Compute turns that into
// ResourceExhausted for tensors kernels construct), this returns a Status instead (issue 7: an
// allocation failure is a Status, never an abort).
// OpKernelContext::allocate_output / allocate_temp and the GPU device's copies use this.
#include "engine/framework/tensor.h"

namespace fb {

// A tensor of `dtype` and `shape` from `allocator` (default CPU). Errors, for any allocator:
// InvalidArgument when the shape is not fully defined or its element count (or byte size)
// overflows int64 (size_t); ResourceExhausted when the allocator refuses, in TensorFlow's words:
// "OOM when allocating tensor with shape[1000000,1000000] and type float (4000000000000 bytes)
// from allocator gpu_bfc_0". (A CpuAllocator refuses any single buffer larger than the
// machine's physical memory.)
// The buffer is taken from `allocator` first and handed to the Tensor through a small proxy
// allocator that returns it to `allocator` when the tensor dies; Tensor::allocator() is that
// proxy, which forwards Name(), IsHostMemory() and further allocations (copies made with
// t.allocator()) to `allocator`. Thread-safe.
StatusOr<Tensor> AllocateTensor(DataType dtype, const TensorShape& shape, Allocator* allocator);

// The bytes of a `dtype` tensor of `shape` (for strings, of its std::string objects), or
// InvalidArgument when the shape is not fully defined or the element count or the byte size
// overflows.
StatusOr<size_t> TensorBytes(DataType dtype, const TensorShape& shape);

// The allocator a tensor's buffer really comes from (sees through AllocateTensor's proxy).
Allocator* BaseAllocator(const Tensor& t);

// Whether `t`'s buffer is host memory (true for tensors without an allocator).
inline bool InHostMemory(const Tensor& t) {
  return t.allocator() == nullptr || t.allocator()->IsHostMemory();
}

}  // namespace fb
