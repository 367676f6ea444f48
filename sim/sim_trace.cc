#include "sim/sim_trace.h"

#include <cmath>

#include "engine/trace/trace_writer.h"

namespace fb::sim {
namespace {

int64_t Ns(double s) { return static_cast<int64_t>(std::llround(s * 1e9)); }

int32_t Rank(int32_t replica, const SimRunOptions& o) {
  return replica >= 0 ? replica : o.workload.replicas;
}

}  // namespace

Status WriteSimTrace(const std::string& path, const Simulation& sim, const SimResult& result,
                     const SimRunOptions& options, TraceMetadata metadata) {
  metadata.mode = TraceMode::kSim;
  ASSIGN_OR_RETURN(auto w, TraceWriter::Create(path, metadata));
  for (size_t d = 0; d < result.device_names.size(); ++d)
    RETURN_IF_ERROR(w->AddDevice(result.device_names[d], result.device_types[d]).status());
  if (sim.placed_graph()) RETURN_IF_ERROR(w->AddGraph(*sim.placed_graph()));
  const SimProgram& prog = sim.program();
  for (const SimEvent& e : result.events) {
    const SimNode& n = prog.partitions[e.partition].nodes[e.node];
    TraceEvent t;
    t.kind = e.kind;
    t.rank = Rank(e.replica, options);
    t.device = result.device_names[e.device];
    t.stream = e.partition;
    t.step = e.step;
    t.node = n.name;
    t.op = n.op;
    t.start_ns = Ns(e.start_s);
    t.end_ns = Ns(e.end_s);
    t.bytes = e.bytes;
    if (e.peer_device >= 0) t.peer_device = result.device_names[e.peer_device];
    RETURN_IF_ERROR(w->AddEvent(t));
  }
  for (const SimStep& s : result.steps) {
    StepTotals totals;
    totals.rank = Rank(s.rank, options);
    totals.start_ns = Ns(s.start_s);
    totals.end_ns = std::max(Ns(s.end_s), totals.start_ns + 1);
    RETURN_IF_ERROR(w->AddStep(s.step, {}, totals));
  }
  for (size_t i = 0; i < result.step_times_s.size(); ++i)
    RETURN_IF_ERROR(w->AddMetric(static_cast<int64_t>(i), "predicted_step_time_s",
                                 result.step_times_s[i]));
  return w->Close();
}

}  // namespace fb::sim
