#pragma once
// Graph passes (whitepaper 5.1, 5.2, 5.5): rewrites of the client graph that the Session runs
// per (feeds, fetches, targets) signature, each switchable by name through
// SessionOptions::passes and each reporting what it changed. Passes see graphs, device
// descriptions and the cost model, never the executor. Registered here:
//   "cse"               common subexpression elimination (5.1)        before placement
//   "constant_folding"  evaluates nodes whose inputs are all constant  before placement
//   "materialize_shapes" Shape/Size/Rank of statically known shapes -> Const  before placement
//   "identity_removal"  bypasses Identity nodes that change nothing   before placement
//   "alap_recv"         holds each Recv until shortly before it is needed (5.2)  after placement
//   "compression"       float32 -> 16-bit on cross-device edges (5.5)   after placement
// Passes of the "after placement" phase see assigned devices and must assign one to every
// node they add.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/placement/device_desc.h"

namespace fb {

class CostModel;

enum class PassPhase { kBeforePlacement, kAfterPlacement };

// What a pass changed: a count and one line per change ("merged 'b' into 'a'").
struct PassReport {
  std::string pass;
  int num_changes = 0;
  std::vector<std::string> changes;
  std::string Summary() const;  // "cse: 3 changes (merged 'b' into 'a'; ...)"
};

struct PassContext {
  DeviceSet devices;  // the devices of the run
  LinkSet links;      // the links between them
  // Set by RunGraphPasses for after-placement passes: a cost model of the graph as the pass
  // receives it (rebuilt before each pass, since passes add nodes).
  const CostModel* cost = nullptr;
};

class GraphPass {
 public:
  virtual ~GraphPass() = default;
  virtual PassPhase phase() const = 0;
  // Rewrites `g` in place. On error the graph may be partly rewritten; the Session then fails
  // the Run with the returned status.
  virtual StatusOr<PassReport> Run(Graph* g, const PassContext& ctx) = 0;
};

class GraphPassRegistry {
 public:
  using Factory = std::function<std::unique_ptr<GraphPass>()>;
  static GraphPassRegistry* Global();
  void Register(const std::string& name, Factory factory);
  // NotFound listing the registered names.
  StatusOr<std::unique_ptr<GraphPass>> Create(const std::string& name) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, Factory> factories_;
};

namespace register_pass {
struct Registrar {
  Registrar(const std::string& name, GraphPassRegistry::Factory f) {
    GraphPassRegistry::Global()->Register(name, std::move(f));
  }
};
}  // namespace register_pass

#define REGISTER_GRAPH_PASS(name, cls)                                                \
  static ::fb::register_pass::Registrar FB_CONCAT(fb_pass_registrar_, __COUNTER__)( \
      name, [] { return std::unique_ptr<::fb::GraphPass>(new cls()); })

// The passes a Session runs unless SessionOptions::default_passes is false, in this order, the
// way TensorFlow runs Grappler by default: materialize_shapes, identity_removal,
// constant_folding (the shapes it materializes and the Identities it bypasses open the way to
// folding). They cut the nodes the executor schedules per step (section "Graph passes" of
// docs/benchmarks.md has the counts per model).
const std::vector<std::string>& DefaultGraphPasses();

// The passes to run for `requested` (SessionOptions::passes): with `with_defaults`, the default
// passes not named in `requested` first, then `requested` in its order.
std::vector<std::string> PassesToRun(const std::vector<std::string>& requested, bool with_defaults);

// Runs, in the listed order, those of the named passes that belong to `phase`, appending their
// reports. NotFound for an unknown name (checked for every name, whatever its phase).
// After-placement passes get a fresh cost model over ctx.devices and ctx.links (shapes refined
// leniently).
Status RunGraphPasses(const std::vector<std::string>& names, PassPhase phase, Graph* g,
                      const PassContext& ctx, std::vector<PassReport>* reports);

}  // namespace fb
