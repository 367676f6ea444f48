#pragma once
// The simulator's profile cost model (`--cost-model profile:FILE[,threads=N]`, issue 17) and the
// configuration check of the measured one:
//   profile   each node's time from its op type and shapes through ProfileCostModel
//             (sim/profile_cost_model.h) with the profile's points of N threads (default 1),
//             scaled by 1 + node_time_factor, plus the executor's overheads
//             (ProfileCostModel::NodeOverheadNs: node_gap_ns, and handoff_ns for the nodes
//             sim/executor_handoffs.h finds handed to another thread, a kernel being expensive
//             when its predicted time exceeds Executor::kInexpensiveNs) and, as each device's
//             dispatch latency, ProfileCostModel::StepFixedNs (run_ns). A schema-1 profile or
//             step-costs=off: schema 1's per_node_inline_ns per node and per_step_ns plus the
//             fitted step correction per step. Op types the profile never measured fall back to
//             the analytic roofline of the platform's device. The
//             description says how many nodes were interpolated, extrapolated and unprofiled.
//   measured  a trace answers only for the configuration it ran: CheckTraceConfiguration
//             compares, node by node, the output bytes the trace recorded with the simulated
//             graph's (fully known shapes only) and refuses a different configuration.
#include <map>
#include <set>
#include <string>

#include "engine/trace/trace_reader.h"
#include "sim/sim_costs.h"

namespace fb::sim {

// "profile:FILE" followed, in any order, by ",threads=N" (0 when not given: the profile's thread
// count when it holds one, else 1) and ",step-costs=on|off" (off: ignore the measured executor
// overheads, for comparison).
struct ProfileSpec {
  std::string path;
  int threads = 0;
  bool step_costs = true;
};

// InvalidArgument quoting `spec` for another prefix, an empty FILE, N not an integer in
// [1, 4096], a step-costs value other than on/off, an option given twice, or an unknown
// ",NAME=VALUE" option (unless FILE with it exists: file names may hold commas).
StatusOr<ProfileSpec> ParseProfileSpec(const std::string& spec);

// `spec` as ParseProfileSpec reads it. The description names the profiled device and mode.
// Errors: those of ParseProfileSpec, InvalidArgument for a thread count the profile lacks
// (naming the file); those of ReadProfile (naming the file), of CostModel::Create (naming the
// node) and of HandedOffNodes. `model` (the registered model simulated, or ""): the profiled
// model whose node curves are read when the profile holds it with these threads, else the
// profiled model MatchingModel finds for `g` (AlexNet's and Overfeat's graphs have the same node
// names: matched by names alone, Overfeat read AlexNet's measurements).
StatusOr<CostModelHandle> MakeProfileSimCosts(const Graph& g,
                                              const std::map<std::string, TensorShape>& feed_shapes,
                                              const std::string& spec,
                                              const std::string& model = "");

// OK when every node of `model`'s graph that the trace ran on a device and whose output shapes
// are fully known produced, in the trace, the bytes the simulated shapes give (median over its
// events; within 1%). Otherwise FailedPrecondition naming the trace, the first differing node
// and both byte counts: the trace measured another configuration (batch size, image size).
Status CheckTraceConfiguration(const Trace& trace, const Graph& g, const CostModel& model);

// TypicalSteps (engine/trace/trace_summary.h) among the steps that have events. A benchmark
// trace (`flowbench benchmark --trace`) holds a /steps row for every timed step but events only
// for the --trace-steps after them; typical steps picked among all rows usually held no event,
// and the measured cost model then fell back to the analytic one for every node.
std::set<int64_t> TypicalTracedSteps(const Trace& trace);

}  // namespace fb::sim
