#pragma once
// Placement (whitepaper 3.2.1, 4.3): every node gets one device. Placers are registered by name
// (REGISTER_PLACER) so experiments can sweep them; each sees only the graph, the cost model and
// the constraints, never the executor, so the Session, `flowbench place` and the simulator share
// them. Registered here: "single" (every group on its first feasible device; the default),
// "round_robin", "random", "greedy" (3.2.1) and "heft" (Topcuoglu, Hariri, Wu 2002).
//
// Every placer places whole colocation groups (constraints.h) on a device feasible for the
// group, and respects per-device memory limits: a device's load is the persistent bytes
// (Variables) plus the output bytes of every node placed on it (an upper bound of its step peak).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/placement/constraints.h"
#include "engine/placement/cost_model.h"

namespace fb {

// Device index (into the CostModel's devices) per node id; -1 for removed node ids.
struct Placement {
  std::vector<int> device;
  int of(const Node& n) const { return device[static_cast<size_t>(n.id())]; }
};

struct PlacerOptions {
  // For "random": a node's device depends on the seed and the node's name only (not on the
  // other nodes of the graph), so that the Session's full client graph and the simulator's
  // pruned step graph place a node they share alike (`--placer-seed` of train and sim).
  uint64_t seed = 0;
};

class Placer {
 public:
  virtual ~Placer() = default;
  // Places every node of `g`. ResourceExhausted naming the node (or group) when no feasible
  // device has memory left for it.
  virtual StatusOr<Placement> Place(const Graph& g, const CostModel& cost,
                                    const PlacementConstraints& constraints,
                                    const PlacerOptions& options) = 0;
};

class PlacerRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Placer>()>;
  static PlacerRegistry* Global();
  void Register(const std::string& name, Factory factory);
  // NotFound listing the registered names.
  StatusOr<std::unique_ptr<Placer>> Create(const std::string& name) const;
  std::vector<std::string> Names() const;  // sorted

 private:
  std::map<std::string, Factory> factories_;
};

namespace register_placer {
struct Registrar {
  Registrar(const std::string& name, PlacerRegistry::Factory f) {
    PlacerRegistry::Global()->Register(name, std::move(f));
  }
};
}  // namespace register_placer

#define REGISTER_PLACER(name, cls)                                                      \
  static ::fb::register_placer::Registrar FB_CONCAT(fb_placer_registrar_, __COUNTER__)( \
      name, [] { return std::unique_ptr<::fb::Placer>(new cls()); })

// Constraints, cost model and placer in one call: places `g` on `devices` with the placer
// named `placer` ("" or "default": "single") and checks the result against the constraints.
StatusOr<Placement> ComputePlacement(const Graph& g, const CostModel& cost,
                                     const std::string& placer, const PlacerOptions& options = {});

// Placement entry point used by the Session: computes a placement (shapes refined leniently,
// unknown dimensions taken as 1) and sets every node's assigned device to the full name.
// InvalidArgument naming the nodes whose constraints leave no feasible device or conflict;
// NotFound for an unknown placer. `options.seed` seeds "random".
Status PlaceGraph(Graph* g, const DeviceSet& devices, const std::string& placer,
                  const PlacerOptions& options = {});

// Tracks each device's memory load while a placer assigns groups (see the header comment).
class DeviceMemory {
 public:
  DeviceMemory(const Graph& g, const CostModel& cost, const PlacementConstraints& c);
  // Bytes group `gid` adds to a device.
  int64_t GroupBytes(int gid) const { return group_bytes_[static_cast<size_t>(gid)]; }
  bool Fits(int gid, int device) const;
  void Add(int gid, int device);
  // ResourceExhausted naming the group's nodes, their bytes and every feasible device's load.
  Status NoRoom(const Graph& g, int gid) const;
  int64_t load(int device) const { return load_[static_cast<size_t>(device)]; }

 private:
  const CostModel& cost_;
  const PlacementConstraints& c_;
  std::vector<int64_t> group_bytes_, load_;
};

// Assigns group `gid` (all its members) to `device` in `p`.
void AssignGroup(const PlacementConstraints& c, int gid, int device, Placement* p);

}  // namespace fb

namespace fb {

// The loop every placer shares: visits `order` (which must list every node); when a node's
// group has no device yet, calls `choose(node, candidates)` with the group's feasible devices
// that have memory left (ascending indices, never empty) and assigns the whole group to the
// returned device. Then calls `on_placed(node, device)` for every node, in order.
using ChooseDeviceFn = std::function<int(const Node& n, const std::vector<int>& candidates)>;
using OnPlacedFn = std::function<void(const Node& n, int device)>;
StatusOr<Placement> PlaceGroupsInOrder(const Graph& g, const CostModel& cost,
                                       const PlacementConstraints& c,
                                       const std::vector<Node*>& order,
                                       const ChooseDeviceFn& choose,
                                       const OnPlacedFn& on_placed = nullptr);

// PlaceGroupsInOrder choosing for each group the device where its first node would finish
// soonest in a simulated execution of the nodes placed so far (schedule_sim.h), transfers
// counted: the rule of the greedy placer (3.2.1, topological order) and of HEFT (upward-rank
// order). Implemented in schedule_sim.cc.
StatusOr<Placement> PlaceEarliestFinish(const Graph& g, const CostModel& cost,
                                        const PlacementConstraints& c,
                                        const std::vector<Node*>& order);

}  // namespace fb
