#include "engine/placement/cost_model.h"

#include <algorithm>
#include <numeric>

#include "engine/trace/trace_reader.h"

namespace fb {

void MeasuredCosts::Add(const std::string& node, const std::string& device_type,
                        double duration_ns) {
  Key key{node, device_type};
  samples_[key].push_back(duration_ns);
  summary_.erase(key);
}

double MeasuredCosts::Compute(const std::vector<double>& samples) const {
  std::vector<double> v = samples;
  if (statistic_ == Statistic::kMean)
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  const auto mid = static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2) return v[static_cast<size_t>(mid)];
  return (*std::max_element(v.begin(), v.begin() + mid) + v[static_cast<size_t>(mid)]) / 2;
}

void MeasuredCosts::Summarize() {
  for (const auto& [key, samples] : samples_) summary_[key] = Compute(samples);
}

double MeasuredCosts::DurationNs(const std::string& node, const std::string& device_type) const {
  Key key{node, device_type};
  if (auto it = summary_.find(key); it != summary_.end()) return it->second;
  auto it = samples_.find(key);
  return it == samples_.end() || it->second.empty() ? -1 : Compute(it->second);
}

MeasuredCosts MeasuredCosts::FromTrace(const Trace& trace, Statistic statistic,
                                       const std::set<int64_t>* steps) {
  MeasuredCosts m(statistic);
  for (const EventRecord& e : trace.events) {
    if (e.kind == static_cast<int32_t>(EventKind::kMemcpy)) continue;
    if (steps != nullptr && !steps->count(e.step)) continue;
    const std::string& node = trace.str(e.node);
    if (node.empty() || e.device < 0 || e.device >= static_cast<int32_t>(trace.devices.size()))
      continue;
    const std::string& type = trace.str(trace.devices[static_cast<size_t>(e.device)].type);
    m.Add(node, type, static_cast<double>(e.end_ns - e.start_ns));
  }
  m.Summarize();
  return m;
}

double AnalyticComputeNs(const OpWork& work, const DeviceDesc& device) {
  double compute_s = work.flops / device.peak_flops_per_s;
  double memory_s = work.bytes_accessed / device.memory_bandwidth_bytes_per_s;
  return device.launch_overhead_ns + 1e9 * std::max(compute_s, memory_s);
}

StatusOr<CostModel> CostModel::Create(const Graph& g, DeviceSet devices, LinkSet links,
                                      CostModelOptions options) {
  if (devices.empty()) return InvalidArgument("cost model: no devices");
  CostModel m;
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceDesc& d = devices[i];
    if (d.peak_flops_per_s <= 0 || d.memory_bandwidth_bytes_per_s <= 0)
      return InvalidArgument("cost model: device '", d.name,
                             "' needs positive peak_flops_per_s and memory_bandwidth_bytes_per_s");
    m.device_index_[d.name] = static_cast<int>(i);
  }
  m.devices_ = std::move(devices);
  for (const DeviceDesc& s : m.devices_)
    for (const DeviceDesc& t : m.devices_) m.link_matrix_.push_back(links.Find(s.name, t.name));
  ASSIGN_OR_RETURN(m.shapes_, InferGraphShapes(g, options.feed_shapes, options.strict_shapes));
  m.nodes_.resize(static_cast<size_t>(g.num_node_ids()));
  for (Node* n : g.nodes()) m.Estimate(*n, options);
  return m;
}

void CostModel::Estimate(const Node& n, const CostModelOptions& options) {
  NodeCost& c = nodes_[static_cast<size_t>(n.id())];
  const std::vector<PartialShape>& outs = shapes_.outputs(n);
  for (int i = 0; i < n.num_outputs(); ++i)
    c.output_bytes.push_back(EstimatedBytes(n.output_type(i), outs[i], options.unknown_dim));
  c.work = EstimateOpWork(n, shapes_.inputs(n), outs, options.unknown_dim);
  for (const DeviceDesc& d : devices_) {
    double measured = options.measured ? options.measured->DurationNs(n.name(), d.type) : -1;
    c.measured.push_back(measured >= 0);
    c.compute_ns.push_back(measured >= 0 ? measured : AnalyticComputeNs(c.work, d));
  }
}

int CostModel::DeviceIndex(const std::string& name) const {
  auto it = device_index_.find(name);
  return it == device_index_.end() ? -1 : it->second;
}

int64_t CostModel::TotalOutputBytes(const Node& n) const {
  int64_t total = 0;
  for (int64_t b : node(n).output_bytes) total += b;
  return total;
}

int64_t CostModel::InputBytes(const Node& n) const {
  int64_t total = 0;
  for (const Edge* e : n.in_edges())
    if (!e->IsControlEdge()) total += OutputBytes(*e->src, e->src_output);
  return total;
}

int64_t CostModel::PersistentBytes(const Node& n) const {
  if (n.op() != "Variable" && n.op() != "VariableV2") return 0;
  return TotalOutputBytes(n);
}

bool CostModel::IsMeasured(const Node& n, int device) const {
  return node(n).measured[static_cast<size_t>(device)];
}

double CostModel::TransferNs(int64_t bytes, int src, int dst) const {
  if (src == dst) return 0;
  const LinkDesc& l = link_matrix_[static_cast<size_t>(src * num_devices() + dst)];
  return l.latency_ns + 1e9 * static_cast<double>(bytes) / l.bandwidth_bytes_per_s;
}

}  // namespace fb
