#include "sim/schedule.h"

#include <algorithm>
#include <map>

#include "engine/runtime/executor.h"

namespace fb::sim {
namespace {

struct Entry {
  SchedulePolicy policy;
  bool delays_transfers = false;
};
std::map<std::string, Entry>& Registry() {
  static auto* r = new std::map<std::string, Entry>;
  return *r;
}

// Global node id: offsets[p] + node.
std::vector<int64_t> Offsets(const SimProgram& program) {
  std::vector<int64_t> off(program.partitions.size() + 1, 0);
  for (size_t p = 0; p < program.partitions.size(); ++p)
    off[p + 1] = off[p] + static_cast<int64_t>(program.partitions[p].nodes.size());
  return off;
}

void SetPriorities(SimProgram* program, bool alap) {
  double makespan = 0;
  auto bl = BottomLevels(*program, &makespan);
  for (size_t p = 0; p < program->partitions.size(); ++p) {
    auto& nodes = program->partitions[p].nodes;
    for (size_t i = 0; i < nodes.size(); ++i) {
      nodes[i].priority = bl[p][i];
      nodes[i].alap_start_s = alap ? makespan - bl[p][i] : 0;
    }
  }
}

// The engine's executor runs an inexpensive node inline on the thread that made it ready, ahead
// of the expensive nodes already waiting (executor.h: transfers are declared inexpensive,
// kernels measured under kInexpensiveNs are).
void Fifo(SimProgram* program) {
  constexpr double kInexpensiveS = Executor::kInexpensiveNs * 1e-9;
  for (SimPartition& p : program->partitions)
    for (SimNode& n : p.nodes) {
      n.priority = n.kind != SimNodeKind::kCompute || n.compute_s < kInexpensiveS ? 1 : 0;
      n.alap_start_s = 0;
    }
}

REGISTER_SIM_SCHEDULE("fifo", Fifo, false);
REGISTER_SIM_SCHEDULE("critical-path", [](SimProgram* program) { SetPriorities(program, false); },
                      false);
REGISTER_SIM_SCHEDULE("alap-recv", [](SimProgram* program) { SetPriorities(program, true); },
                      true);

}  // namespace

ScheduleRegistrar::ScheduleRegistrar(const std::string& name, SchedulePolicy policy,
                                     bool delays_transfers) {
  Registry()[name] = Entry{std::move(policy), delays_transfers};
}

std::vector<std::string> ScheduleNames() {
  std::vector<std::string> names;
  for (const auto& [name, entry] : Registry()) names.push_back(name);
  return names;
}

Status ApplySchedule(const std::string& name, SimProgram* program) {
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    std::string known;
    for (const std::string& n : ScheduleNames()) known += (known.empty() ? "" : ", ") + n;
    return NotFound("unknown schedule '", name, "' (known: ", known, ")");
  }
  it->second.policy(program);
  return Status::OK();
}

bool ScheduleDelaysTransfers(const std::string& name) {
  auto it = Registry().find(name);
  return it != Registry().end() && it->second.delays_transfers;
}

std::vector<std::vector<double>> BottomLevels(const SimProgram& program, double* makespan_s) {
  const std::vector<int64_t> off = Offsets(program);
  const int64_t total = off.back();
  // Successor lists over global ids, with edge weights (transfers: estimated_s).
  std::vector<int32_t> indegree(static_cast<size_t>(total), 0);
  auto for_succ = [&](int p, int i, auto&& fn) {
    const SimNode& n = program.partitions[p].nodes[i];
    for (int32_t s : n.succs) fn(p, s, 0.0);
    if (n.kind == SimNodeKind::kSend && n.transfer >= 0) {
      const SimTransfer& t = program.transfers[n.transfer];
      fn(t.dst_partition, t.dst_node, t.estimated_s);
    }
  };
  for (size_t p = 0; p < program.partitions.size(); ++p)
    for (size_t i = 0; i < program.partitions[p].nodes.size(); ++i)
      for_succ(p, i, [&](int q, int j, double) { ++indegree[off[q] + j]; });
  std::vector<std::pair<int, int>> order;  // Kahn order
  order.reserve(static_cast<size_t>(total));
  for (size_t p = 0; p < program.partitions.size(); ++p)
    for (size_t i = 0; i < program.partitions[p].nodes.size(); ++i)
      if (indegree[off[p] + i] == 0) order.emplace_back(p, i);
  for (size_t k = 0; k < order.size(); ++k)
    for_succ(order[k].first, order[k].second, [&](int q, int j, double) {
      if (--indegree[off[q] + j] == 0) order.emplace_back(q, j);
    });
  std::vector<std::vector<double>> bl(program.partitions.size());
  for (size_t p = 0; p < program.partitions.size(); ++p)
    bl[p].assign(program.partitions[p].nodes.size(), 0.0);
  double makespan = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    auto [p, i] = *it;
    double below = 0;
    for_succ(p, i, [&](int q, int j, double w) { below = std::max(below, w + bl[q][j]); });
    bl[p][i] = program.partitions[p].nodes[i].compute_s + below;
    makespan = std::max(makespan, bl[p][i]);
  }
  if (makespan_s) *makespan_s = makespan;
  return bl;
}

}  // namespace fb::sim
