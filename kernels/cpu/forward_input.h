#pragma once
// Buffer forwarding for element-wise CPU kernels (TensorFlow's forward_input_or_allocate_output):
// an output may overwrite an input's buffer when the kernel's input is the buffer's only holder,
// as for a value computed in this step and consumed by one node only. Saves an allocation (and,
// for large tensors, the page faults of fresh memory) per op: the gradient accumulations of
// while loops (issue 16: dW += x^T dz per LSTM time step) add a [V + H, 4H] matrix per step.
#include "engine/framework/op_kernel.h"

namespace fb {

// Output `out` of `ctx`: input `in`'s tensor when it has `shape` and dtype `dtype`, is not a
// reference (Variable) input and nothing but this kernel's input holds its buffer; otherwise a
// newly allocated tensor. Errors: those of OpKernelContext::allocate_output (ResourceExhausted).
// The caller must only write element i of the output after reading element i of the input
// (element-wise kernels do).
inline StatusOr<Tensor*> ForwardInputOrAllocateOutput(OpKernelContext* ctx, int in, int out,
                                                      DataType dtype, const TensorShape& shape) {
  const Tensor& x = ctx->input(in);
  if (ctx->input_ref(in) == nullptr && x.dtype() == dtype && x.shape() == shape &&
      x.BufferRefCount() == 1 && x.NumElements() > 0) {
    ctx->forward_input(in, out);  // the output shares the buffer; the input lets go at the end
    return &(*ctx->mutable_outputs())[out].tensor;
  }
  Tensor* t = nullptr;
  RETURN_IF_ERROR(ctx->allocate_output(out, shape, &t));
  return t;
}

}  // namespace fb
