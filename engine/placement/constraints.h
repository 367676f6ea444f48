#pragma once
// Placement constraints (whitepaper 4.3): each node's feasible devices, and colocation groups
// that must share one device.
//   - A node's feasible devices are those of a type with a kernel for it ("a device may not
//     have a kernel for a particular operation") that match its requested device, a partial
//     name such as "/device:GPU:*" or "/job:worker/task:17". A node already assigned a device
//     is pinned to it. Soft placement (TensorFlow's allow_soft_placement) for the host nodes of
//     host_ops.h only (host ops and string tensors): when no device of the requested type has a kernel for one, the request's
//     device type and id are dropped (job, replica and task still apply), so a model built
//     under a "/device:GPU:0" scope keeps its input pipeline and checkpoints on the CPU.
//   - Colocation: a node reading a Ref input is colocated with the node producing that
//     reference (its Variable), and `_class: ["loc:@variable13"]` colocates a node with
//     variable13 (TensorFlow's colocation attr). A loop's NextIteration and non-constant Enter
//     nodes are colocated with the Merge they feed (a partitioned loop cannot carry those edges
//     across devices, see constraints.cc). Groups are the classes of a union-find over
//     these pairs; a group's feasible set is the intersection of its members' sets ("the
//     placement algorithm computes the intersection of the feasible sets").
// The placers only choose among feasible devices of whole groups.
#include <string>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/placement/device_desc.h"

namespace fb {

struct PlacementConstraints {
  std::vector<int> group;                     // node id -> group id (-1 for removed ids)
  std::vector<std::vector<int>> members;      // group id -> node ids, in node id order
  std::vector<std::vector<char>> feasible;    // group id -> per device: 1 if allowed
  int num_groups() const { return static_cast<int>(members.size()); }
  bool Feasible(int node_id, int device) const {
    return feasible[static_cast<size_t>(group[static_cast<size_t>(node_id)])]
                   [static_cast<size_t>(device)] != 0;
  }
  // The first feasible device of node `node_id`'s group (there always is one after Build).
  int FirstFeasible(int node_id) const;
};

// Computes the constraints of `g` over `devices`. InvalidArgument when a node's requested
// device is malformed (naming the node), when a node has no feasible device (naming node, op,
// request and the devices considered), or when a colocation group's members' sets do not
// intersect (naming every member and its request), or a `_class` names a missing node.
StatusOr<PlacementConstraints> BuildPlacementConstraints(const Graph& g, const DeviceSet& devices);

// The node names a `_class` attr colocates `n` with ("loc:@w" -> "w").
std::vector<std::string> ColocationNames(const Node& n);

}  // namespace fb
