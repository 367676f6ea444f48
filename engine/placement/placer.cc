#include "engine/placement/placer.h"

#include <sstream>

namespace fb {

PlacerRegistry* PlacerRegistry::Global() {
  static auto* registry = new PlacerRegistry;
  return registry;
}

void PlacerRegistry::Register(const std::string& name, Factory factory) {
  FB_CHECK(factories_.emplace(name, std::move(factory)).second) << "placer '" << name
                                                                << "' registered twice";
}

StatusOr<std::unique_ptr<Placer>> PlacerRegistry::Create(const std::string& name) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    std::ostringstream os;
    for (const auto& [n, f] : factories_) os << " " << n;
    return NotFound("unknown placer '", name, "'; registered:", os.str());
  }
  return it->second();
}

std::vector<std::string> PlacerRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [n, f] : factories_) names.push_back(n);
  return names;
}

DeviceMemory::DeviceMemory(const Graph& g, const CostModel& cost, const PlacementConstraints& c)
    : cost_(cost), c_(c), group_bytes_(static_cast<size_t>(c.num_groups()), 0),
      load_(static_cast<size_t>(cost.num_devices()), 0) {
  for (Node* n : g.nodes()) {
    int64_t bytes = cost.PersistentBytes(*n);
    if (bytes == 0 && !IsMetadataOp(n->op())) bytes = cost.TotalOutputBytes(*n);
    group_bytes_[static_cast<size_t>(c.group[static_cast<size_t>(n->id())])] += bytes;
  }
}

bool DeviceMemory::Fits(int gid, int device) const {
  int64_t limit = cost_.devices()[static_cast<size_t>(device)].memory_limit_bytes;
  return limit <= 0 || load_[static_cast<size_t>(device)] + GroupBytes(gid) <= limit;
}

void DeviceMemory::Add(int gid, int device) { load_[static_cast<size_t>(device)] += GroupBytes(gid); }

Status DeviceMemory::NoRoom(const Graph& g, int gid) const {
  std::ostringstream os;
  os << "no feasible device has memory for";
  for (int id : c_.members[static_cast<size_t>(gid)]) os << " '" << g.node(id)->name() << "'";
  os << " (" << GroupBytes(gid) << " bytes); loads:";
  for (int d = 0; d < cost_.num_devices(); ++d)
    if (c_.feasible[static_cast<size_t>(gid)][static_cast<size_t>(d)])
      os << " " << cost_.devices()[static_cast<size_t>(d)].name << " " << load(d) << "/"
         << cost_.devices()[static_cast<size_t>(d)].memory_limit_bytes;
  return ResourceExhausted(os.str());
}

void AssignGroup(const PlacementConstraints& c, int gid, int device, Placement* p) {
  for (int id : c.members[static_cast<size_t>(gid)]) p->device[static_cast<size_t>(id)] = device;
}

namespace {
// A placer bug, not user input: every node placed on a feasible device.
Status CheckPlacement(const Graph& g, const PlacementConstraints& c, const Placement& p,
                      const std::string& placer) {
  for (Node* n : g.nodes()) {
    int d = p.of(*n);
    if (d < 0 || !c.Feasible(n->id(), d))
      return Internal("placer '", placer, "' put node '", n->name(), "' on ",
                      d < 0 ? "no device" : "an infeasible device");
  }
  return Status::OK();
}
}  // namespace

StatusOr<Placement> ComputePlacement(const Graph& g, const CostModel& cost,
                                     const std::string& placer, const PlacerOptions& options) {
  std::string name = placer.empty() || placer == "default" ? "single" : placer;
  ASSIGN_OR_RETURN(std::unique_ptr<Placer> p, PlacerRegistry::Global()->Create(name));
  ASSIGN_OR_RETURN(PlacementConstraints c, BuildPlacementConstraints(g, cost.devices()));
  ASSIGN_OR_RETURN(Placement result, p->Place(g, cost, c, options));
  RETURN_IF_ERROR(CheckPlacement(g, c, result, name));
  return result;
}

Status PlaceGraph(Graph* g, const DeviceSet& devices, const std::string& placer,
                  const PlacerOptions& options) {
  if (devices.empty()) return InvalidArgument("no devices to place on");
  CostModelOptions opts;
  opts.strict_shapes = false;
  ASSIGN_OR_RETURN(CostModel cost, CostModel::Create(*g, devices, {}, opts));
  ASSIGN_OR_RETURN(Placement p, ComputePlacement(*g, cost, placer, options));
  for (Node* n : g->nodes()) n->set_assigned_device(devices[static_cast<size_t>(p.of(*n))].name);
  return Status::OK();
}

}  // namespace fb

namespace fb {

StatusOr<Placement> PlaceGroupsInOrder(const Graph& g, const CostModel& cost,
                                       const PlacementConstraints& c,
                                       const std::vector<Node*>& order,
                                       const ChooseDeviceFn& choose, const OnPlacedFn& on_placed) {
  Placement p;
  p.device.assign(static_cast<size_t>(g.num_node_ids()), -1);
  DeviceMemory memory(g, cost, c);
  std::vector<int> candidates;
  for (Node* n : order) {
    int gid = c.group[static_cast<size_t>(n->id())];
    if (p.of(*n) < 0) {
      candidates.clear();
      for (int d = 0; d < cost.num_devices(); ++d)
        if (c.feasible[static_cast<size_t>(gid)][static_cast<size_t>(d)] && memory.Fits(gid, d))
          candidates.push_back(d);
      if (candidates.empty()) return memory.NoRoom(g, gid);
      int d = choose(*n, candidates);
      memory.Add(gid, d);
      AssignGroup(c, gid, d, &p);
    }
    if (on_placed) on_placed(*n, p.of(*n));
  }
  return p;
}

}  // namespace fb
