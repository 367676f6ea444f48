#pragma once
// Allocating a tensor without aborting when its allocator is out of memory: the Tensor
// constructor FB_CHECKs its allocation, which is right for host memory in tests but not for GPU
// memory, which runs out in practice (issue 7: an allocation failure is a Status, never an abort).
// OpKernelContext::allocate_output / allocate_temp and the GPU device's copies use this.
#include "engine/framework/tensor.h"

namespace fb {

// A tensor of `dtype` and `shape` from `allocator` (default CPU), or, for a BfcAllocator (GPU
// memory, pinned staging), ResourceExhausted
// "out of memory allocating float[1048576,1048576] (4398046511104 bytes) from gpu_bfc_0".
// Other allocators (CPU devices') behave exactly as the Tensor constructor.
// The buffer is taken from `allocator` first and handed to the Tensor through a small proxy
// allocator that returns it to `allocator` when the tensor dies; Tensor::allocator() is that
// proxy, which forwards Name(), IsHostMemory() and further allocations (copies made with
// t.allocator()) to `allocator`. Thread-safe.
StatusOr<Tensor> AllocateTensor(DataType dtype, const TensorShape& shape, Allocator* allocator);

// The allocator a tensor's buffer really comes from (sees through AllocateTensor's proxy).
Allocator* BaseAllocator(const Tensor& t);

}  // namespace fb
