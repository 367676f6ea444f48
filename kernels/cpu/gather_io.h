#pragma once
// The checks that the CPU and GPU kernels of Gather, GatherV2 and UnsortedSegmentSum share
// (engine/ops/array_gather_ops.cc; kernels/cpu/gather_kernels.cc, kernels/cuda/gather_ops.cc), so
// that a bad index fails with the same message on both devices.
#include <cstdint>

#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"

namespace fb::gather_io {

// InvalidArgument naming the first of `indices` (a host tensor of Index) outside [0, limit):
// "<what>[1,0] = 7 is not in [0, 5)". Negative values pass when `allow_negative`
// (UnsortedSegmentSum drops them).
template <typename Index>
Status CheckIndices(const Tensor& indices, int64_t limit, const char* what, bool allow_negative) {
  const Index* idx = indices.data<Index>();
  for (int64_t j = 0; j < indices.NumElements(); ++j) {
    if ((idx[j] < 0 && !allow_negative) || idx[j] >= limit)
      return InvalidArgument(what, FlatIndexString(indices.shape(), j), " = ", idx[j],
                             " is not in [0, ", limit, ")");
  }
  return Status::OK();
}

// Gather's and GatherV2's attrs: whether the op has an axis input (GatherV2), after checking
// GatherV2's batch_dims (Unimplemented unless 0; the status is set on `c`).
inline bool ParseGatherAttrs(OpKernelConstruction* c) {
  const bool has_axis = c->def().op == "GatherV2";
  int64_t batch_dims = 0;
  if (has_axis) c->SetStatus(c->GetAttr("batch_dims", &batch_dims));
  if (batch_dims != 0)
    c->SetStatus(Unimplemented("batch_dims = ", batch_dims, " is not supported (only 0)"));
  return has_axis;
}

}  // namespace fb::gather_io
