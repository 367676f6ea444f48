#pragma once
// The fused_ops attr of _FusedConv2D (engine/ops/nn_ops_conv.cc), shared by its CPU and GPU
// kernels and by the fuse_conv_bias_relu pass that creates it.
#include <string>
#include <vector>

#include "engine/framework/attr_value.h"
#include "engine/framework/status.h"

namespace fb {

// Whether fused_ops asks for a Relu after the bias: true for ["BiasAdd", "Relu"], false for
// ["BiasAdd"]; InvalidArgument naming the list for anything else (or a missing attr).
inline StatusOr<bool> FusedConvAppliesRelu(const AttrMap& attrs) {
  std::vector<std::string> ops;
  RETURN_IF_ERROR(GetNodeAttr(attrs, "fused_ops", &ops));
  if (ops == std::vector<std::string>{"BiasAdd"}) return false;
  if (ops == std::vector<std::string>{"BiasAdd", "Relu"}) return true;
  std::string listed;
  for (const std::string& op : ops) listed += (listed.empty() ? "" : ", ") + op;
  return InvalidArgument("_FusedConv2D supports fused_ops [BiasAdd] and [BiasAdd, Relu], got [",
                         listed, "]");
}

}  // namespace fb
