#pragma once
// Ops that stay on the host CPU by design, even when a GPU is one of the devices: the one
// allowlist the placers (baseline_placers.cc: "single" prefers a GPU for every other op),
// placement constraints (constraints.cc: soft placement) and the GPU placement-fallback test
// (tests/engine/placement/gpu_fallback_test.cc) share; nodes of string dtype are host nodes too
// (HostNodeReason). Everything else that training runs is a
// compute op and must have a GPU kernel for its dtype (issue 21).
//
// Each entry says why the op stays on the host. An op is listed here only when a GPU kernel
// would not help: it moves data between the process and the outside (client feeds and fetches,
// files, MPI), or it is host-side bookkeeping of the input pipeline (queues, the dataset reader,
// candidate samplers drawing with a host random engine), as in TensorFlow, whose input pipeline,
// Save/Restore and candidate samplers are CPU-only too.
#include <string>
#include <vector>

#include "engine/framework/attr_value.h"

namespace fb {

struct HostOp {
  const char* op;      // op name, e.g. "DatasetBatch"
  const char* reason;  // why it stays on the host
};

// The allowlist, sorted by op name.
const std::vector<HostOp>& HostOps();

// Why `op` stays on the host, or nullptr when it is a compute op (not in HostOps()).
const char* HostOpReason(const std::string& op);
inline bool IsHostOp(const std::string& op) { return HostOpReason(op) != nullptr; }

// Why a node of `op` with `attrs` stays on the host, or nullptr: HostOpReason(op), or a string
// dtype attr (string tensors live in host memory only, as TensorFlow's DT_STRING: the tensor
// names of Save/Restore, the loop frames of string tensors).
const char* HostNodeReason(const std::string& op, const AttrMap& attrs);
inline bool IsHostNode(const std::string& op, const AttrMap& attrs) {
  return HostNodeReason(op, attrs) != nullptr;
}

}  // namespace fb
