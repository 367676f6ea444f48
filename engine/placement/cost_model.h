#pragma once
// The cost model of whitepaper 3.2.1: "estimates of the sizes (in bytes) of the input and output
// tensors for each graph node, along with estimates of the computation time required for each
// node when presented with its input tensors", either "statically estimated based on heuristics
// associated with different operation types" or "measured based on an actual set of placement
// decisions for earlier executions of the graph".
//
// Analytic mode: compute time of node n on device d (ns) =
//   d.launch_overhead_ns + 1e9 * max(flops(n) / d.peak_flops_per_s,
//                                    bytes_accessed(n) / d.memory_bandwidth_bytes_per_s)
// (a roofline: Williams et al., CACM 2009), with FLOPs and bytes from engine/placement/op_cost.h
// over the shapes of whole-graph shape refinement (graph_shapes.h).
// Measured mode: the mean duration of compute events of the same node name on a device of the
// same type in an HDF5 trace of an earlier run (engine/trace); nodes not in the trace fall back
// to the analytic estimate.
// Transfer time of b bytes from device s to device t (s != t): link.latency_ns + 1e9 * b /
// link.bandwidth_bytes_per_s with the LinkSet's link for (s, t); 0 when s == t.
//
// The model never touches the executor: the placers, the passes, `flowbench place` and the
// SimGrid simulator (sim/) share it. Immutable after Create; const methods are thread-safe.
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "engine/placement/device_desc.h"
#include "engine/placement/graph_shapes.h"
#include "engine/placement/op_cost.h"

namespace fb {

struct Trace;

// Per-node durations measured in a trace: (end_ns - start_ns) of compute, send and recv events,
// keyed by (node name, device type), summarised by their median (default: robust to the
// preempted executions of a shared machine; what the placers use) or their mean. Means compose:
// over a set of steps, the sum of per-node means is the mean of the steps' sums, which per-node
// medians are not (durations within a step are correlated and skewed: on a 2-rank LeNet run
// their sum fell 20% short of the median step), so the simulator's measured cost model uses
// means over the typical steps (sim/sim_costs.h).
class MeasuredCosts {
 public:
  enum class Statistic { kMedian, kMean };
  // Events of every step, or only of `steps` when given (e.g. TypicalSteps, trace_summary.h).
  static MeasuredCosts FromTrace(const Trace& trace, Statistic statistic = Statistic::kMedian,
                                 const std::set<int64_t>* steps = nullptr);
  explicit MeasuredCosts(Statistic statistic = Statistic::kMedian) : statistic_(statistic) {}
  // The statistic of the node's durations in ns, or a negative value when the trace has no
  // such event. O(log nodes) after Summarize, else O(samples of the node).
  double DurationNs(const std::string& node, const std::string& device_type) const;
  void Add(const std::string& node, const std::string& device_type, double duration_ns);
  // Computes every node's statistic once (FromTrace does; call it after a series of Add).
  void Summarize();
  size_t size() const { return samples_.size(); }
  Statistic statistic() const { return statistic_; }

 private:
  using Key = std::pair<std::string, std::string>;  // (node, device type)
  double Compute(const std::vector<double>& samples) const;
  Statistic statistic_;
  std::map<Key, std::vector<double>> samples_;
  std::map<Key, double> summary_;
};

struct CostModelOptions {
  int64_t unknown_dim = 1;  // size assumed for dimensions shape refinement leaves unknown
  // Shapes of fed nodes (Placeholders with an unknown batch size), by node name.
  std::map<std::string, TensorShape> feed_shapes;
  // false: a node whose shape function fails gets unknown output shapes instead of an error
  // (the Session places graphs whose shapes are only checked by the kernels).
  bool strict_shapes = true;
  // When set, measured mode: node durations come from here where known.
  std::shared_ptr<const MeasuredCosts> measured;
};

class CostModel {
 public:
  // Refines shapes and estimates every node of `g` on every device. Errors: those of
  // InferGraphShapes (naming the node), InvalidArgument for an empty device set or a device
  // with non-positive peak FLOP/s or bandwidth (naming it). `g` must outlive the model only
  // while Node references are passed in; the model keeps per-node-id tables.
  static StatusOr<CostModel> Create(const Graph& g, DeviceSet devices, LinkSet links = {},
                                    CostModelOptions options = {});

  const DeviceSet& devices() const { return devices_; }
  int num_devices() const { return static_cast<int>(devices_.size()); }
  // Index of the device with this full name in devices(), or -1.
  int DeviceIndex(const std::string& name) const;
  const GraphShapes& shapes() const { return shapes_; }

  // Estimated bytes of output `port` of n; of all its outputs; of all its data inputs.
  int64_t OutputBytes(const Node& n, int port) const { return node(n).output_bytes[port]; }
  int64_t TotalOutputBytes(const Node& n) const;
  int64_t InputBytes(const Node& n) const;
  // Bytes that stay allocated across steps on n's device: a Variable's value.
  int64_t PersistentBytes(const Node& n) const;
  const OpWork& Work(const Node& n) const { return node(n).work; }

  // Compute time of n on device index `device`, ns (measured where known).
  double ComputeNs(const Node& n, int device) const {
    return node(n).compute_ns[static_cast<size_t>(device)];
  }
  bool IsMeasured(const Node& n, int device) const;
  // Time to move `bytes` from device index src to dst, ns (0 if src == dst).
  double TransferNs(int64_t bytes, int src, int dst) const;

 private:
  struct NodeCost {
    std::vector<int64_t> output_bytes;
    OpWork work;
    std::vector<double> compute_ns;  // per device
    std::vector<bool> measured;      // per device
  };
  CostModel() = default;
  const NodeCost& node(const Node& n) const { return nodes_[static_cast<size_t>(n.id())]; }
  void Estimate(const Node& n, const CostModelOptions& options);

  DeviceSet devices_;
  std::map<std::string, int> device_index_;
  std::vector<LinkDesc> link_matrix_;  // [src * num_devices + dst]
  GraphShapes shapes_;
  std::vector<NodeCost> nodes_;  // by node id
};

// Analytic compute time of `work` on `device`, ns (the roofline formula above).
double AnalyticComputeNs(const OpWork& work, const DeviceDesc& device);

}  // namespace fb
