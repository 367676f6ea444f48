// Baseline placers for comparison with the cost-model placers: everything on one device,
// round-robin over devices, and uniformly random devices. All honour constraints, colocation
// and memory limits (placer.h). Groups are visited in topological order.
#include <cstdint>
#include <string>

#include "engine/framework/device.h"
#include "engine/placement/host_ops.h"
#include "engine/placement/placer.h"

namespace fb {

namespace {

// Whether every member of group `gid` stays on the host by design (host_ops.h).
bool HostOnlyGroup(const Graph& g, const PlacementConstraints& c, int gid) {
  for (int id : c.members[static_cast<size_t>(gid)])
    if (!IsHostNode(g.node(id)->op(), g.node(id)->def().attrs)) return false;
  return true;
}

// Every group on its first feasible device with room, preferring the device type TensorFlow's
// placer prefers: a GPU for a group with a compute op, a CPU for a group of host nodes only
// (host_ops.h: feeds, fetches, the input pipeline, checkpoints, string tensors). Without GPUs (--devices cpu:N)
// that is the first feasible device: one device when there are no constraints (the Session's
// default, and the single-device baseline); with a CPU and a GPU, every compute op that has a
// GPU kernel (its whole colocation group) runs on the first GPU.
class SinglePlacer : public Placer {
 public:
  StatusOr<Placement> Place(const Graph& g, const CostModel& cost, const PlacementConstraints& c,
                            const PlacerOptions&) override {
    ASSIGN_OR_RETURN(std::vector<Node*> order, g.TopologicalOrder());
    return PlaceGroupsInOrder(g, cost, c, order, [&](const Node& n, const std::vector<int>& cand) {
      const int gid = c.group[static_cast<size_t>(n.id())];
      const char* preferred = HostOnlyGroup(g, c, gid) ? DEVICE_CPU : DEVICE_GPU;
      for (int d : cand)
        if (cost.devices()[static_cast<size_t>(d)].type == preferred) return d;
      return cand[0];
    });
  }
};

// Group k goes to the next feasible device at or after device (k mod D).
class RoundRobinPlacer : public Placer {
 public:
  StatusOr<Placement> Place(const Graph& g, const CostModel& cost, const PlacementConstraints& c,
                            const PlacerOptions&) override {
    ASSIGN_OR_RETURN(std::vector<Node*> order, g.TopologicalOrder());
    int next = 0;
    return PlaceGroupsInOrder(g, cost, c, order, [&](const Node&, const std::vector<int>& cand) {
      int chosen = cand[0];
      for (int d : cand)
        if (d >= next) {
          chosen = d;
          break;
        }
      next = (chosen + 1) % cost.num_devices();
      return chosen;
    });
  }
};

// A uniformly distributed 64-bit value of (seed, name): FNV-1a of the name, mixed with the seed
// by splitmix64's finaliser (Steele et al., "Fast splittable pseudorandom number generators",
// OOPSLA 2014). The same on every platform and run.
uint64_t NameHash(uint64_t seed, const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ull;
  uint64_t z = h + seed * 0x9e3779b97f4a7c15ull + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A uniformly random feasible device per group, drawn from (options.seed, the name of the
// group's first node in topological order) alone: a node shared by two graphs (the Session's
// full client graph, the simulator's pruned step) lands on the same device in both, where a
// generator advanced node by node would depend on every node placed before it.
class RandomPlacer : public Placer {
 public:
  StatusOr<Placement> Place(const Graph& g, const CostModel& cost, const PlacementConstraints& c,
                            const PlacerOptions& options) override {
    ASSIGN_OR_RETURN(std::vector<Node*> order, g.TopologicalOrder());
    return PlaceGroupsInOrder(g, cost, c, order,
                              [&](const Node& n, const std::vector<int>& cand) {
                                return cand[NameHash(options.seed, n.name()) % cand.size()];
                              });
  }
};

}  // namespace

REGISTER_PLACER("single", SinglePlacer);
REGISTER_PLACER("round_robin", RoundRobinPlacer);
REGISTER_PLACER("random", RandomPlacer);

}  // namespace fb
