#include "sim/profile_recorder.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "engine/placement/cost_model.h"
#include "engine/runtime/executor.h"
#include "engine/runtime/local_devices.h"
#include "engine/runtime/session.h"
#include "engine/trace/trace_reader.h"
#include "experiments/models/model_graph.h"
#include "experiments/training/benchmark.h"
#include "sim/benchmark_process.h"
#include "sim/executor_cost_probe.h"
#include "sim/transfer_cost_probe.h"
#include "sim/executor_handoffs.h"
#include "sim/profile_device.h"

namespace fb::sim {
namespace {

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Status CheckOptions(const ProfileOptions& o) {
  if (o.models.empty() || o.batch_sizes.empty() || o.threads.empty())
    return InvalidArgument("profile: --models, --batch-sizes and --threads must not be empty");
  for (int64_t b : o.batch_sizes)
    if (b < 1) return InvalidArgument("profile: --batch-sizes must be >= 1, got ", b);
  for (int t : o.threads)
    if (t < 1) return InvalidArgument("profile: --threads must be >= 1, got ", t);
  if (o.warmup_steps < 0 || o.timed_steps < 1 || o.traced_steps < 1)
    return InvalidArgument("profile: warm-up steps must be >= 0, timed and traced steps >= 1, got ",
                           o.warmup_steps, ", ", o.timed_steps, ", ", o.traced_steps);
  if (o.devices != "cpu:1" && o.devices != "gpu:1")
    return InvalidArgument("profile: --devices must be cpu:1 or gpu:1 (one device profiled), got '",
                           o.devices, "'");
  RETURN_IF_ERROR(experiments::ParseBenchmarkMode(o.mode).status().WithPrefix("profile: --mode: "));
  if (o.devices == "gpu:1") {  // fail before measuring anything when there is no GPU
    RETURN_IF_ERROR(CreateDevicesForFlag(o.devices, 1).status().WithPrefix("profile: "));
  }
  return Status::OK();
}

// Per node name: mean duration (ns) over the traced steps whose node-time sum lies between the
// 20th and 80th percentile, and the number of executions averaged.
std::map<std::string, std::pair<double, int>> NodeMeans(const Trace& trace) {
  std::map<int64_t, double> step_sum;
  for (const EventRecord& e : trace.events)
    if (e.kind == static_cast<int32_t>(EventKind::kCompute))
      step_sum[e.step] += static_cast<double>(e.end_ns - e.start_ns);
  std::vector<std::pair<double, int64_t>> order;
  for (const auto& [step, sum] : step_sum) order.emplace_back(sum, step);
  std::sort(order.begin(), order.end());
  const size_t drop = order.size() / 5;
  std::set<int64_t> kept;
  for (size_t i = drop; i + drop < order.size(); ++i) kept.insert(order[i].second);
  std::map<std::string, std::pair<double, int>> means;
  for (const EventRecord& e : trace.events) {
    if (e.kind != static_cast<int32_t>(EventKind::kCompute) || !kept.count(e.step)) continue;
    auto& [sum, count] = means[trace.str(e.node)];
    sum += static_cast<double>(e.end_ns - e.start_ns);
    ++count;
  }
  for (auto& [node, m] : means) m.first /= m.second;
  return means;
}

// A file of this process under o.scratch_dir for one configuration.
std::string ScratchPath(const ProfileOptions& o, const std::string& model, int64_t batch,
                        int threads, const std::string& suffix) {
  return o.scratch_dir + "/flowbench-profile-" + std::to_string(getpid()) + "-" + model + "-" +
         std::to_string(batch) + "-" + std::to_string(threads) + suffix;
}

// The progress line of one configuration.
std::string StepLine(const ProfileStep& step) {
  std::ostringstream s;
  s << step.model << " batch " << step.batch << " threads " << step.threads << ": median step "
    << step.median_step_ns * 1e-6 << " ms, node sum " << step.node_sum_ns * 1e-6 << " ms over "
    << step.nodes << " nodes, " << step.handoffs << " hand-offs (load " << step.load_average
    << ")";
  return s.str();
}

// One configuration: its points and its step row.
Status ProfileConfiguration(const ProfileOptions& o, const std::string& model, int64_t batch,
                            int threads, Profile* out, const ProfileLog& log) {
  experiments::BenchmarkOptions b;
  b.model = model;
  b.model_options.batch_size = static_cast<int>(batch);
  b.num_batches = o.timed_steps;
  b.num_warmup_batches = o.warmup_steps;
  b.threads = threads;
  b.devices = o.devices;
  ASSIGN_OR_RETURN(b.mode, experiments::ParseBenchmarkMode(o.mode));
  b.trace_steps = o.traced_steps;
  b.trace_path = ScratchPath(o, model, batch, threads, ".h5");
  StatusOr<experiments::BenchmarkResult> r =
      o.benchmark_binary.empty()
          ? experiments::RunBenchmark(b)
          : RunBenchmarkProcess(o.benchmark_binary, b, ScratchPath(o, model, batch, threads,
                                                                   ".json"));
  StatusOr<Trace> trace = r.ok() ? TraceReader::Open(b.trace_path) : StatusOr<Trace>(r.status());
  std::remove(b.trace_path.c_str());
  RETURN_IF_ERROR(trace.status());
  const auto means = NodeMeans(*trace);
  if (o.devices == "gpu:1") {
    out->device_type = "GPU";
    out->device = DeviceDescriptionOfType(r->devices, "GPU");
  }
  ASSIGN_OR_RETURN(experiments::ModelGraph g, experiments::BuildModelGraph(model, batch, o.mode));
  CostModelOptions co;
  co.feed_shapes = g.feed_shapes;
  ASSIGN_OR_RETURN(CostModel cm, CostModel::Create(*g.graph, DeviceSet{DeviceDesc{}}, {}, co));
  ProfileStep step{model, batch, threads, 0, 0, 0, static_cast<int32_t>(r->step_ms.size()),
                   LoadAverage1m()};
  for (Node* n : g.graph->nodes()) {
    auto it = means.find(n->name());
    if (it == means.end()) continue;
    const OpWork& w = cm.Work(*n);
    out->points.push_back({model, n->name(), n->op(), batch, threads, w.flops, w.bytes_accessed,
                           it->second.first, it->second.second});
    step.node_sum_ns += it->second.first;
    ++step.nodes;
  }
  ASSIGN_OR_RETURN(std::set<std::string> handed_off,
                   HandedOffNodes(*g.graph, [&means](const Node& n) {
                     auto it = means.find(n.name());
                     return it != means.end() && it->second.first > Executor::kInexpensiveNs;
                   }));
  step.handoffs = static_cast<int32_t>(handed_off.size());
  std::vector<double> ns;
  for (double ms : r->step_ms) ns.push_back(ms * 1e6);
  step.median_step_ns = MedianOf(ns);
  step.mean_step_ns = std::accumulate(ns.begin(), ns.end(), 0.0) / static_cast<double>(ns.size());
  out->steps.push_back(step);
  if (log) log(StepLine(step));
  return Status::OK();
}

}  // namespace

double LoadAverage1m() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  if (!(in >> load)) return -1;
  return load;
}

StatusOr<Profile> RecordProfile(const ProfileOptions& o, const ProfileLog& log) {
  RETURN_IF_ERROR(CheckOptions(o));
  Profile p;
  p.mode = o.mode;
  // Every configuration first, then the executor and transfer probes: profiled after the probes
  // in the same process (4 CPU devices, 4 MiB transfers), MLP's 0.44 ms steps took 13% longer
  // (six alternating runs); with benchmark_binary set, each configuration runs in a fresh
  // process anyway (sim/benchmark_process.h).
  for (int threads : o.threads)
    for (const std::string& model : o.models)
      for (int64_t batch : o.batch_sizes)
        RETURN_IF_ERROR(ProfileConfiguration(o, model, batch, threads, &p, log));
  for (int threads : o.threads) {
    ASSIGN_OR_RETURN(ProfileExecutor e, MeasureExecutorCosts(threads));
    p.executor.push_back(e);
    if (log)
      log("executor, threads " + std::to_string(threads) + ": per step " +
          std::to_string(e.per_step_ns / 1e3) + " us, per node inline " +
          std::to_string(e.per_node_inline_ns / 1e3) + " us, through the pool " +
          std::to_string(e.per_node_pool_ns / 1e3) + " us; with kernels, a feed and a fetch: " +
          "per Run " + std::to_string(e.run_ns / 1e3) + " us, per node " +
          std::to_string(e.node_gap_ns / 1e3) + " us, per hand-off " +
          std::to_string(e.handoff_ns / 1e3) + " us; per transfer between devices " +
          std::to_string(e.transfer_ns / 1e3) + " us + " +
          std::to_string(e.transfer_ns_per_byte) + " ns per byte; compression " +
          std::to_string(e.compress_ns_per_byte) + " + " +
          std::to_string(e.decompress_ns_per_byte) + " ns per float32 byte");
    if (log)
      for (const std::string& line : TransferPointLines(e)) log(line);
  }
  return p;
}

}  // namespace fb::sim
