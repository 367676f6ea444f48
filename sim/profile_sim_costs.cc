#include "sim/profile_sim_costs.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>

#include "engine/runtime/executor.h"
#include "engine/trace/trace_summary.h"
#include "sim/executor_handoffs.h"
#include "sim/profile_cost_model.h"
#include "sim/profile_transfer_costs.h"

namespace fb::sim {

// "FILE" after "profile:", then ",threads=N" and ",step-costs=on|off" in any order.
StatusOr<ProfileSpec> ParseProfileSpec(const std::string& spec) {
  if (spec.rfind("profile:", 0) != 0)
    return InvalidArgument("--cost-model '", spec, "': expected profile:FILE[,threads=N]");
  ProfileSpec out;
  std::string rest = spec.substr(std::string("profile:").size());
  std::set<std::string> given;  // option names: a second one was silently overridden
  for (size_t comma; (comma = rest.rfind(',')) != std::string::npos; rest.resize(comma)) {
    const std::string option = rest.substr(comma + 1);
    const std::string key = option.substr(0, option.find('='));
    if ((key == "threads" || key == "step-costs") && !given.insert(key).second)
      return InvalidArgument("--cost-model '", spec, "': ", key, " is given twice");
    if (option.rfind("threads=", 0) == 0) {
      const std::string n = option.substr(8);
      char* end = nullptr;
      const long v = std::strtol(n.c_str(), &end, 10);
      if (n.empty() || *end != '\0' || v < 1 || v > 4096)
        return InvalidArgument("--cost-model '", spec, "': threads must be an integer in [1, ",
                               "4096], got '", n, "'");
      out.threads = static_cast<int>(v);
    } else if (option.rfind("step-costs=", 0) == 0) {
      const std::string v = option.substr(11);
      if (v != "on" && v != "off")
        return InvalidArgument("--cost-model '", spec, "': step-costs must be on or off, got '",
                               v, "'");
      out.step_costs = v == "on";
    } else if (option.find('=') != std::string::npos && !std::filesystem::exists(rest)) {
      // Not a file whose name holds ",x=y": a misspelt option, which read as a missing file.
      return InvalidArgument("--cost-model '", spec, "': unknown option '", option,
                             "' (profile:FILE takes threads=N and step-costs=on|off)");
    } else {
      break;  // part of the file name
    }
  }
  if (rest.empty()) return InvalidArgument("--cost-model '", spec, "': expected profile:FILE");
  out.path = rest;
  return out;
}

namespace {

// The thread count of a spec without ",threads=N": the profile's only one, else 1.
int DefaultThreads(const Profile& p) {
  std::set<int> counts;
  for (const ProfilePoint& q : p.points) counts.insert(q.threads);
  return counts.size() == 1 ? *counts.begin() : 1;
}

bool FullyKnown(const std::vector<PartialShape>& shapes) {
  for (const PartialShape& s : shapes)
    if (!s.has_value() || IsUnknownRank(*s) || !s->IsFullyDefined()) return false;
  return true;
}

// Counts of the nodes of `g` by prediction source, and the unprofiled op types.
std::string Coverage(const Graph& g, const CostModel& cm, const ProfileCostModel& pm,
                     const std::string& model, const ProfileCostModel::StepCorrection& step,
                     size_t handoffs) {
  int counts[3] = {0, 0, 0};
  std::set<std::string> unprofiled;
  for (Node* n : g.nodes()) {
    const ProfilePrediction p = pm.Predict(n->op(), n->name(), cm.Work(*n), model);
    ++counts[static_cast<int>(p.source)];
    if (p.source == ProfilePrediction::Source::kUnprofiled) unprofiled.insert(n->op());
  }
  std::ostringstream s;
  s << "threads " << pm.threads() << "; ";
  if (pm.uses_step_costs())
    s << "executor overheads measured: " << pm.StepFixedNs(step) * 1e-3 << " us per step, "
      << pm.NodeOverheadNs(false) * 1e-3 << " us per node, +" << pm.executor().handoff_ns * 1e-3
      << " us per hand-off (" << handoffs << " nodes handed off), "
      << TransferCostsDescription(pm) << "; ";  // sim/profile_transfer_costs.h
  else
    s << "executor overheads not measured (schema-1 profile or step-costs=off); ";
  s << "step correction " << step.step_overhead_ns * 1e-6
    << " ms + " << step.node_time_factor * 100 << "% of node time - "
    << step.node_trace_ns * 1e-3 << " us per node (tracing) from "
    << step.configurations << " configurations of "
    << (model.empty() ? "every profiled model" : "'" + model + "'")
    << "; interpolated: " << counts[0]
    << " nodes, extrapolated: " << counts[1] << " nodes, unprofiled (analytic): " << counts[2]
    << " nodes";
  if (!unprofiled.empty()) {
    s << " [";
    for (const std::string& op : unprofiled) s << (&op == &*unprofiled.begin() ? "" : " ") << op;
    s << "]";
  }
  return s.str();
}

// The share of the simulated step's profiled node time that tracing added to it: -nodes *
// node_trace_ns / (the profiled nodes' predicted time), at least -0.5 (0 without a per-node cost).
double TracingShare(const Graph& g, const CostModel& cm, const ProfileCostModel& pm,
                    const std::string& model, double node_trace_ns) {
  if (node_trace_ns <= 0) return 0;
  double profiled_ns = 0;
  int64_t profiled_nodes = 0;
  for (Node* n : g.nodes()) {
    const ProfilePrediction p = pm.Predict(n->op(), n->name(), cm.Work(*n), model);
    if (p.source == ProfilePrediction::Source::kUnprofiled) continue;
    profiled_ns += p.time_ns;
    ++profiled_nodes;
  }
  if (profiled_ns <= 0) return 0;
  return std::max(-0.5, -static_cast<double>(profiled_nodes) * node_trace_ns / profiled_ns);
}

}  // namespace

StatusOr<CostModelHandle> MakeProfileSimCosts(const Graph& g,
                                              const std::map<std::string, TensorShape>& feed_shapes,
                                              const std::string& spec,
                                              const std::string& simulated_model) {
  ASSIGN_OR_RETURN(ProfileSpec ps, ParseProfileSpec(spec));
  ASSIGN_OR_RETURN(Profile profile, ReadProfile(ps.path));
  if (ps.threads == 0) ps.threads = DefaultThreads(profile);
  ASSIGN_OR_RETURN(ProfileCostModel pm,
                   ProfileCostModel::Create(profile, ps.threads, ps.path, ps.step_costs));
  auto profile_model = std::make_shared<const ProfileCostModel>(std::move(pm));
  CostModelOptions options;
  options.feed_shapes = feed_shapes;
  ASSIGN_OR_RETURN(CostModel model, CostModel::Create(g, DeviceSet{DeviceDesc{}}, {}, options));
  auto cm = std::make_shared<const CostModel>(std::move(model));
  std::vector<std::string> names;
  std::vector<ProfileCostModel::NodeWork> works;
  for (Node* n : g.nodes()) {
    names.push_back(n->name());
    works.push_back({n->name(), n->op(), cm->Work(*n)});
  }
  const std::string model_name = profile_model->HasModel(simulated_model)
                                     ? simulated_model
                                     : profile_model->MatchingModel(names, works);
  const ProfileCostModel::StepCorrection step = profile_model->Correction(model_name);
  // Expensive as the executor decides it: a kernel time above kInexpensiveNs.
  ASSIGN_OR_RETURN(std::set<std::string> handed_off_set,
                   HandedOffNodes(g, [&](const Node& n) {
                     return profile_model->Predict(n.op(), n.name(), cm->Work(n), model_name)
                                .time_ns > Executor::kInexpensiveNs;
                   }));
  auto handed_off = std::make_shared<const std::set<std::string>>(std::move(handed_off_set));
  CostModelHandle h;
  h.model = cm;
  h.description = spec + " (" + profile.device_type + " " +
                  (profile.device.empty() ? "" : "'" + profile.device + "' ") + profile.mode +
                  " steps; " +
                  Coverage(g, *cm, *profile_model, model_name, step, handed_off->size()) + ")";
  const Graph* graph = &g;
  const double node_scale = 1 + step.node_time_factor +
                            TracingShare(g, *cm, *profile_model, model_name, step.node_trace_ns);
  h.costs.compute_s = [cm, graph, profile_model, node_scale, handed_off, model_name](
                          const Node& n, const DeviceDesc& d) {
    const Node* orig = graph->FindNode(n.name());
    if (orig == nullptr) return 0.0;
    const OpWork& work = cm->Work(*orig);
    const ProfilePrediction p =
        profile_model->Predict(orig->op(), orig->name(), work, model_name);
    const double ns = p.source == ProfilePrediction::Source::kUnprofiled
                          ? AnalyticComputeNs(work, d)
                          : p.time_ns * node_scale +
                                profile_model->NodeOverheadNs(handed_off->count(n.name()) > 0);
    return ns * 1e-9;
  };
  h.costs.output_bytes = [cm, graph](const Node& n, int port) -> int64_t {
    const Node* orig = graph->FindNode(n.name());
    return orig ? cm->OutputBytes(*orig, port) : 0;
  };
  const double step_s = profile_model->StepFixedNs(step) * 1e-9;
  h.costs.dispatch_s = [step_s](const std::string&) { return step_s; };
  SetProfileTransferCosts(*profile_model, &h.costs);  // sim/profile_transfer_costs.h
  return h;
}

Status CheckTraceConfiguration(const Trace& trace, const Graph& g, const CostModel& model) {
  std::map<std::string, std::vector<int64_t>> bytes;  // compute events' output bytes by node
  for (const EventRecord& e : trace.events)
    if (e.kind == static_cast<int32_t>(EventKind::kCompute) && e.bytes > 0)
      bytes[trace.str(e.node)].push_back(e.bytes);
  for (Node* n : g.nodes()) {
    auto it = bytes.find(n->name());
    if (it == bytes.end() || !FullyKnown(model.shapes().outputs(*n))) continue;
    const int64_t simulated = model.TotalOutputBytes(*n);
    if (simulated <= 0) continue;
    std::vector<int64_t>& v = it->second;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    const int64_t measured = v[v.size() / 2];
    if (std::abs(static_cast<double>(measured - simulated)) > 0.01 * static_cast<double>(simulated))
      return FailedPrecondition(
          "trace '", trace.path, "' measured another configuration than the one simulated: node '",
          n->name(), "' produced ", measured, " bytes there and ", simulated,
          " bytes here (a different batch size or input shape). Simulate the trace's "
          "configuration, or predict this one with --cost-model profile:FILE (flowbench profile)");
  }
  return Status::OK();
}

std::set<int64_t> TypicalTracedSteps(const Trace& trace) {
  std::set<int64_t> traced;
  for (const EventRecord& e : trace.events) traced.insert(e.step);
  Trace rows;
  for (const StepRecord& r : trace.steps)
    if (traced.count(r.step)) rows.steps.push_back(r);
  return TypicalSteps(rows);
}

}  // namespace fb::sim
