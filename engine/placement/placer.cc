#include "engine/placement/placer.h"

#include "engine/framework/op_kernel.h"

namespace fb {

namespace {
// The node that a Ref input ultimately refers to (its Variable), for colocation (4.3).
Node* RefSource(Node* n) {
  for (int i = 0; i < n->num_inputs(); ++i) {
    if (!n->input_is_ref(i)) continue;
    const Edge* e = n->input_edge(i);
    if (e) return e->src;
  }
  return nullptr;
}
}  // namespace

Status PlaceGraph(Graph* g, const DeviceSet& devices, const std::string& placer) {
  if (devices.empty()) return InvalidArgument("no devices to place on");
  if (!placer.empty() && placer != "default" && placer != "single")
    return NotFound("unknown placer '", placer, "'");
  ASSIGN_OR_RETURN(std::vector<Node*> order, g->TopologicalOrder());
  for (Node* n : order) {
    if (!n->assigned_device().empty()) continue;
    ParsedDeviceName want;
    if (Node* src = RefSource(n); src && !src->assigned_device().empty()) {
      n->set_assigned_device(src->assigned_device());
      continue;
    }
    ASSIGN_OR_RETURN(want, ParseDeviceName(n->requested_device()));
    const DeviceDesc* chosen = nullptr;
    for (const DeviceDesc& d : devices) {
      auto parsed = ParseDeviceName(d.name);
      if (!parsed.ok() || !DeviceNameMatches(*parsed, want)) continue;
      if (!KernelRegistry::Global()->HasKernel(d.type, n->def())) continue;
      chosen = &d;
      break;
    }
    if (!chosen)
      return InvalidArgument("node '", n->name(), "' (", n->op(), "): no device satisfies '",
                             n->requested_device(), "' and has a kernel for it");
    n->set_assigned_device(chosen->name);
  }
  return Status::OK();
}

}  // namespace fb
