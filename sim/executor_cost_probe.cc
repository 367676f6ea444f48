#include "sim/executor_cost_probe.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/client/math_ops.h"
#include "engine/client/scope.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/session.h"
#include "sim/transfer_cost_probe.h"

namespace fb::sim {
namespace {

constexpr int kChainNodes = 100;           // Neg kernels of the chain
constexpr int kDiamonds = 20;              // stages of the hand-off graph
constexpr int64_t kSmallElements = 16;     // inexpensive kernels (well under 2 us)
constexpr int64_t kLargeElements = 65536;  // expensive kernels (tens of us)

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

NodeDef NoOpDef(const std::string& name, std::vector<std::string> inputs) {
  NodeDef d;
  d.name = name;
  d.op = "NoOp";
  d.inputs = std::move(inputs);
  return d;
}

// The schema-1 null graphs: "single", a chain "chain_0".."chain_{n-1}" and a fan-out between
// "fan_root" and "fan_sink", NoOps only.
void AddNullGraphs(int nodes, GraphDef* def) {
  def->nodes.push_back(NoOpDef("single", {}));
  def->nodes.push_back(NoOpDef("chain_0", {}));
  for (int i = 1; i < nodes; ++i)
    def->nodes.push_back(
        NoOpDef("chain_" + std::to_string(i), {"^chain_" + std::to_string(i - 1)}));
  def->nodes.push_back(NoOpDef("fan_root", {}));
  std::vector<std::string> leaves;
  for (int i = 0; i < nodes; ++i) {
    def->nodes.push_back(NoOpDef("fan_" + std::to_string(i), {"^fan_root"}));
    leaves.push_back("^fan_" + std::to_string(i));
  }
  def->nodes.push_back(NoOpDef("fan_sink", leaves));
}

// The schema-2 graphs: x (float [16], fed) -> "neg_1" and the chain "negchain_0..n-1"; y (float
// [65536], fed) -> kDiamonds stages "stage_i" = Add(Neg(stage_{i-1}), Neg(stage_{i-1})).
StatusOr<GraphDef> KernelGraphs() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({kSmallElements}));
  ops::Neg(root.WithOpName("neg_1"), x);
  Output prev = x;
  for (int i = 0; i < kChainNodes; ++i)
    prev = ops::Neg(root.WithOpName("negchain_" + std::to_string(i)), prev);
  auto y = ops::Placeholder(root.WithOpName("y"), DataType::kFloat, TensorShape({kLargeElements}));
  ops::Neg(root.WithOpName("neg_large"), y);
  prev = y;
  for (int i = 0; i < kDiamonds; ++i) {
    const std::string s = std::to_string(i);
    auto a = ops::Neg(root.WithOpName("left_" + s), prev);
    auto b = ops::Neg(root.WithOpName("right_" + s), prev);
    prev = ops::Add(root.WithOpName("stage_" + s), a, b);
  }
  RETURN_IF_ERROR(root.status());
  return root.ToGraphDef();
}

Tensor Zeros(int64_t n) {
  Tensor t(DataType::kFloat, TensorShape({n}));
  std::fill(t.data<float>(), t.data<float>() + n, 0.0f);
  return t;
}

// The time during which at least one kernel ran (the union of the traced intervals): the sum of
// the durations for kernels that ran one after the other.
double BusyNs(const std::vector<NodeExecStats>& stats) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const NodeExecStats& s : stats) spans.emplace_back(s.start_ns, s.end_ns);
  std::sort(spans.begin(), spans.end());
  double busy = 0;
  int64_t covered = INT64_MIN;
  for (const auto& [start, end] : spans) {
    if (end <= covered) continue;
    busy += static_cast<double>(end - std::max(start, covered));
    covered = end;
  }
  return busy;
}

// Medians over `runs` runs (after 10 warm-up runs) of the untraced Run's wall time and of the
// time the traced kernels were busy (BusyNs), ns.
struct RunTimes {
  double wall_ns = 0, kernels_ns = 0;
  double nodes = 0;  // traced nodes per Run (feeds and fetches included)
  double outside_ns() const { return wall_ns - kernels_ns; }
};

StatusOr<RunTimes> MeasureRuns(Session* session, const std::vector<Session::NamedTensor>& feeds,
                               const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets, int runs) {
  std::vector<double> wall, kernels, nodes;
  std::vector<Tensor> out;
  for (int i = 0; i < runs + 10; ++i) {
    const auto start = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(session->Run(feeds, fetches, targets, &out));
    const auto end = std::chrono::steady_clock::now();
    if (i >= 10) wall.push_back(std::chrono::duration<double, std::nano>(end - start).count());
  }
  RunOptions traced;
  traced.trace = true;
  for (int i = 0; i < runs + 10; ++i) {
    RunMetadata meta;
    RETURN_IF_ERROR(session->Run(traced, feeds, fetches, targets, &out, &meta));
    const double sum = BusyNs(meta.step_stats);
    if (i >= 10)
      kernels.push_back(sum), nodes.push_back(static_cast<double>(meta.step_stats.size()));
  }
  return RunTimes{MedianOf(wall), MedianOf(kernels), MedianOf(nodes)};
}

// The median hand-off latency over `runs` traced runs of the diamonds: for each stage i >= 1,
// the Neg of the stage that ran on another thread than stage_{i-1} started this long after
// stage_{i-1} ended. 0 when no stage was handed off.
StatusOr<double> HandoffLatencyNs(Session* session, const std::vector<Session::NamedTensor>& feeds,
                                  int runs) {
  RunOptions traced;
  traced.trace = true;
  std::vector<double> latencies;
  std::vector<Tensor> out;
  for (int r = 0; r < runs + 10; ++r) {
    RunMetadata meta;
    RETURN_IF_ERROR(
        session->Run(traced, feeds, {"stage_" + std::to_string(kDiamonds - 1)}, {}, &out, &meta));
    if (r < 10) continue;
    std::map<std::string, const NodeExecStats*> by_name;
    for (const NodeExecStats& st : meta.step_stats) by_name[st.node_name] = &st;
    for (int i = 1; i < kDiamonds; ++i) {
      auto producer = by_name.find("stage_" + std::to_string(i - 1));
      if (producer == by_name.end()) continue;
      for (const char* side : {"left_", "right_"}) {
        auto it = by_name.find(side + std::to_string(i));
        if (it != by_name.end() && it->second->thread_id != producer->second->thread_id)
          latencies.push_back(static_cast<double>(it->second->start_ns - producer->second->end_ns));
      }
    }
  }
  return latencies.empty() ? 0.0 : std::max(0.0, MedianOf(latencies));
}

}  // namespace

StatusOr<ProfileExecutor> MeasureExecutorCosts(int threads, int runs) {
  if (threads < 1 || runs < 1)
    return InvalidArgument("executor costs: threads and runs must be >= 1, got ", threads, " and ",
                           runs);
  GraphDef def;
  AddNullGraphs(2 * kChainNodes, &def);
  ASSIGN_OR_RETURN(GraphDef kernels, KernelGraphs());
  for (NodeDef& n : kernels.nodes) def.nodes.push_back(std::move(n));
  SessionOptions so;
  so.device_options.threads_per_cpu = threads;
  ASSIGN_OR_RETURN(auto session, Session::Create(so));
  RETURN_IF_ERROR(session->Extend(def));
  Session* s = session.get();
  const int null_nodes = 2 * kChainNodes;

  ProfileExecutor e;
  e.threads = threads;
  e.has_step_costs = true;
  ASSIGN_OR_RETURN(RunTimes single, MeasureRuns(s, {}, {}, {"single"}, runs));
  ASSIGN_OR_RETURN(RunTimes chain,
                   MeasureRuns(s, {}, {}, {"chain_" + std::to_string(null_nodes - 1)}, runs));
  ASSIGN_OR_RETURN(RunTimes fan, MeasureRuns(s, {}, {}, {"fan_sink"}, runs));
  e.per_step_ns = single.wall_ns;
  e.per_node_inline_ns = std::max(0.0, (chain.wall_ns - single.wall_ns) / (null_nodes - 1));
  e.per_node_pool_ns = std::max(0.0, (fan.wall_ns - single.wall_ns) / (null_nodes + 1));

  const std::vector<Session::NamedTensor> small = {{"x", Zeros(kSmallElements)}};
  const std::vector<Session::NamedTensor> large = {{"y", Zeros(kLargeElements)}};
  ASSIGN_OR_RETURN(RunTimes one, MeasureRuns(s, small, {"neg_1"}, {}, runs));
  ASSIGN_OR_RETURN(
      RunTimes line,
      MeasureRuns(s, small, {"negchain_" + std::to_string(kChainNodes - 1)}, {}, runs));
  // A step like a model's: the caller runs the cheap nodes, the expensive one is handed to the
  // pool, and its completion wakes the caller blocked in Run.
  std::vector<Session::NamedTensor> both = small;
  both.push_back(large[0]);
  ASSIGN_OR_RETURN(RunTimes step, MeasureRuns(s, both, {"neg_1", "neg_large"}, {}, runs));
  // Outside the kernels, a Run of n nodes takes run + n * gap.
  e.node_gap_ns =
      std::max(0.0, (line.outside_ns() - one.outside_ns()) / std::max(1.0, line.nodes - one.nodes));
  e.run_ns = std::max(0.0, step.outside_ns() - step.nodes * e.node_gap_ns);
  ASSIGN_OR_RETURN(e.handoff_ns, HandoffLatencyNs(s, large, runs));
  RETURN_IF_ERROR(MeasureTransferProfile(threads, runs, &e));  // sim/transfer_cost_probe.h
  return e;
}

}  // namespace fb::sim
