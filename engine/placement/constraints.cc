#include "engine/placement/constraints.h"

#include <numeric>
#include <sstream>

#include "engine/framework/device_name.h"
#include "engine/framework/op_kernel.h"
#include "engine/placement/host_ops.h"

namespace fb {

namespace {

class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(static_cast<size_t>(n)) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int Find(int x) {
    while (parent_[static_cast<size_t>(x)] != x)
      x = parent_[static_cast<size_t>(x)] = parent_[static_cast<size_t>(parent_[static_cast<size_t>(x)])];
    return x;
  }
  void Union(int a, int b) {
    a = Find(a), b = Find(b);
    if (a != b) parent_[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

std::string Describe(const Node& n) {
  std::string req = !n.assigned_device().empty() ? n.assigned_device() : n.requested_device();
  return "'" + n.name() + "' (" + n.op() + ", device '" + req + "')";
}

// Feasible devices of one node from its request (or assignment) and kernel availability.
StatusOr<std::vector<char>> NodeFeasible(const Node& n, const DeviceSet& devices,
                                         const std::vector<ParsedDeviceName>& parsed) {
  const std::string& want_str =
      n.assigned_device().empty() ? n.requested_device() : n.assigned_device();
  auto want = ParseDeviceName(want_str);
  if (!want.ok()) return InvalidArgument("node '", n.name(), "': ", want.status().message());
  std::vector<char> ok(devices.size(), 0);
  bool any = false;
  auto match = [&](const ParsedDeviceName& request) {
    for (size_t d = 0; d < devices.size(); ++d) {
      ok[d] = DeviceNameMatches(parsed[d], request) &&
              KernelRegistry::Global()->HasKernel(devices[d].type, n.def());
      any = any || ok[d];
    }
  };
  match(*want);
  // Soft placement of host ops (host_ops.h): a request for a device type without a kernel for
  // them (a model built under a GPU device scope) moves them to another device of the same task.
  if (!any && want->has_type && IsHostNode(n.op(), n.def().attrs)) {
    ParsedDeviceName task_only = *want;
    task_only.has_type = task_only.has_id = false;
    match(task_only);
  }
  if (!any) {
    std::ostringstream os;
    for (const DeviceDesc& d : devices) os << " " << d.name;
    return InvalidArgument("node ", Describe(n),
                           ": no device satisfies the request and has a kernel for it; devices:",
                           os.str());
  }
  return ok;
}

// Whether `n`'s value reaches its loop's Merge in an iteration other than the one a _Recv in
// another partition would wait in: a NextIteration's value belongs to the next iteration, and a
// non-constant Enter's to iteration 0 only, while the _Recv that partitioning puts in front of a
// Merge on another device runs in every iteration (triggered by that device's control loop) and
// would wait forever for the values never sent. Such nodes are placed with the Merge they feed;
// their own inputs may cross devices.
bool LoopEdgeMustStayLocal(const Node& n) {
  if (n.op() == "NextIteration") return true;
  bool is_constant = false;
  return n.op() == "Enter" &&
         !(GetNodeAttr(n.def().attrs, "is_constant", &is_constant).ok() && is_constant);
}

}  // namespace

std::vector<std::string> ColocationNames(const Node& n) {
  std::vector<std::string> names, out;
  if (!GetNodeAttr(n.def().attrs, "_class", &names).ok()) return out;
  for (const std::string& s : names)
    if (s.rfind("loc:@", 0) == 0) out.push_back(s.substr(5));
  return out;
}

int PlacementConstraints::FirstFeasible(int node_id) const {
  const auto& f = feasible[static_cast<size_t>(group[static_cast<size_t>(node_id)])];
  for (size_t d = 0; d < f.size(); ++d)
    if (f[d]) return static_cast<int>(d);
  return -1;
}

StatusOr<PlacementConstraints> BuildPlacementConstraints(const Graph& g, const DeviceSet& devices) {
  if (devices.empty()) return InvalidArgument("no devices to place on");
  std::vector<ParsedDeviceName> parsed;
  for (const DeviceDesc& d : devices) {
    ASSIGN_OR_RETURN(ParsedDeviceName p, ParseDeviceName(d.name));
    parsed.push_back(p);
  }
  UnionFind uf(g.num_node_ids());
  for (Node* n : g.nodes()) {
    for (int i = 0; i < n->num_inputs(); ++i)
      if (n->input_is_ref(i))
        if (const Edge* e = n->input_edge(i)) uf.Union(n->id(), e->src->id());
    if (LoopEdgeMustStayLocal(*n))
      for (const Edge* e : n->out_edges())
        if (!e->IsControlEdge() && e->dst->op() == "Merge") uf.Union(n->id(), e->dst->id());
    for (const std::string& name : ColocationNames(*n)) {
      Node* other = g.FindNode(name);
      if (!other)
        return InvalidArgument("node '", n->name(), "' is to be colocated with '", name,
                               "', which is not in the graph");
      uf.Union(n->id(), other->id());
    }
  }
  PlacementConstraints c;
  c.group.assign(static_cast<size_t>(g.num_node_ids()), -1);
  std::vector<int> root_group(static_cast<size_t>(g.num_node_ids()), -1);
  for (Node* n : g.nodes()) {
    int& gid = root_group[static_cast<size_t>(uf.Find(n->id()))];
    if (gid < 0) {
      gid = c.num_groups();
      c.members.emplace_back();
      c.feasible.emplace_back(devices.size(), 1);
    }
    c.group[static_cast<size_t>(n->id())] = gid;
    c.members[static_cast<size_t>(gid)].push_back(n->id());
    ASSIGN_OR_RETURN(std::vector<char> f, NodeFeasible(*n, devices, parsed));
    for (size_t d = 0; d < f.size(); ++d) c.feasible[static_cast<size_t>(gid)][d] &= f[d];
  }
  for (int gid = 0; gid < c.num_groups(); ++gid) {
    const auto& f = c.feasible[static_cast<size_t>(gid)];
    if (std::find(f.begin(), f.end(), 1) != f.end()) continue;
    std::ostringstream os;
    for (int id : c.members[static_cast<size_t>(gid)]) os << " " << Describe(*g.node(id));
    return InvalidArgument("conflicting placement constraints: the colocated nodes", os.str(),
                           " have no device in common that has kernels for all of them");
  }
  return c;
}

}  // namespace fb
