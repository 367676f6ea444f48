// `flowbench sim`: replays a graph on a simulated platform (docs/simulator.md).
//   flowbench sim (--graph G.json | --model NAME) --platform P.xml [--placer NAME [--placer-seed N]]
//                 [--schedule fifo|critical-path|alap-recv] [--replicas N] [--ps K]
//                 [--mode sync|async|backup:B] [--compression on|off]
//                 [--cost-model analytic|measured:TRACE.h5|measured-mean:TRACE.h5|profile:FILE]
//                 [--steps S] [--concurrent-steps C]
//                 [--stragglers P:F] [--compute-noise off|exp:M] [--start-spread S]
//                 [--seed N] [--batch-size B] [--trace OUT.h5]
//                 [--metrics-json FILE] [--allreduce-algorithm A] [--mpi-eager-limit B]
//                 [--check-memory]
//                 [--loop-iterations N] [--model-mode forward|forward-backward|train]
//                 [--control-plane on|off] [--message-overhead-ns NS]
//                 [--serialize-bytes-per-s R] [--message-latency-ns NS]
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "apps/command_files.h"
#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "engine/passes/graph_pass.h"
#include "sim/op_time_scales.h"
#include "sim/profile.h"
#include "sim/profile_device.h"
#include "sim/profile_sim_costs.h"
#include "sim/sim_costs.h"
#include "sim/sim_metrics.h"
#include "sim/sim_trace.h"
#include "sim/simulator.h"
#include "sim/step_variation.h"

namespace fb::apps {
namespace {

struct SimFlags {
  std::string graph, model, platform, placer, schedule = "fifo", mode = "sync";
  std::string compression = "off", cost_model = "analytic", stragglers, trace, metrics_json;
  std::string compute_noise = "off", start_spread = "0";  // sim/step_variation.h
  std::string allreduce_algorithm = "libnbc";
  std::string mpi_eager_limit = "platform";
  std::string control_plane = "off";
  // "": the platform's host properties (sim/message_cost.h)
  std::string message_overhead_ns, serialize_bytes_per_s, message_latency_ns,
      send_serialize_bytes_per_s;
  bool check_memory = false;
  bool no_default_passes = false;
  std::string loop_iterations;  // "": not given
  std::string model_mode;       // "": the profile's mode with profile:FILE, else train
  int replicas = 1, ps = 0, steps = 1, concurrent_steps = 1, batch = 32;
  uint64_t seed = 0;
  uint64_t placer_seed = 0;
  std::vector<std::string> argv;
};

StatusOr<sim::SimRunOptions> Options(const SimFlags& f) {
  sim::SimRunOptions o;
  sim::WorkloadOptions& w = o.workload;
  w.replicas = f.replicas;
  w.ps = f.ps;
  w.steps = f.steps;
  w.concurrent_steps = f.concurrent_steps;
  w.seed = f.seed;
  w.schedule = f.schedule;
  w.placer = f.placer;
  w.placer_seed = f.placer_seed;
  RETURN_IF_ERROR(sim::ParseSyncMode(f.mode, &w));
  if (f.compression != "on" && f.compression != "off")
    return InvalidArgument("--compression must be on or off, got '", f.compression, "'");
  w.compression = f.compression == "on";
  if (!f.stragglers.empty()) RETURN_IF_ERROR(sim::ParseStragglers(f.stragglers, &w));
  RETURN_IF_ERROR(sim::ParseComputeNoise(f.compute_noise, &w));
  RETURN_IF_ERROR(sim::ParseStartSpread(f.start_spread, &w));
  RETURN_IF_ERROR(sim::ParseAllreduceAlgorithm(f.allreduce_algorithm, &w.allreduce));
  ASSIGN_OR_RETURN(w.mpi_eager_limit_bytes, sim::ParseEagerLimitFlag(f.mpi_eager_limit));
  o.check_memory = f.check_memory;
  if (f.control_plane != "on" && f.control_plane != "off")
    return InvalidArgument("--control-plane must be on or off, got '", f.control_plane, "'");
  o.control_plane = f.control_plane == "on";
  if (!f.message_overhead_ns.empty() || !f.serialize_bytes_per_s.empty() ||
      !f.message_latency_ns.empty() || !f.send_serialize_bytes_per_s.empty()) {
    auto text = [](const std::string& v) { return v.empty() ? nullptr : v.c_str(); };
    ASSIGN_OR_RETURN(o.message_cost,
                     sim::ParseMessageCost("every host (--message-overhead-ns, "
                                           "--serialize-bytes-per-s, --message-latency-ns, "
                                           "--send-serialize-bytes-per-s)",
                                           text(f.message_overhead_ns),
                                           text(f.serialize_bytes_per_s),
                                           text(f.message_latency_ns),
                                           text(f.send_serialize_bytes_per_s)));
  }
  ASSIGN_OR_RETURN(o.loops.iterations, sim::ParseLoopIterations(f.loop_iterations));
  for (const char* prefix : {"measured:", "measured-mean:"})
    if (f.cost_model.rfind(prefix, 0) == 0) {  // loops run as often as in the trace
      ASSIGN_OR_RETURN(o.loops.executions_per_step,
                       sim::NodeExecutionsFromTrace(f.cost_model.substr(std::string(prefix).size())));
    }
  o.record_events = !f.trace.empty();
  return o;
}

// With --cost-model profile:FILE: the profile (its device and mode), else nullopt.
StatusOr<std::optional<sim::Profile>> ProfileOfSpec(const std::string& spec, std::string* path) {
  if (spec.rfind("profile:", 0) != 0) return std::optional<sim::Profile>();
  ASSIGN_OR_RETURN(sim::ProfileSpec ps, sim::ParseProfileSpec(spec));
  *path = ps.path;
  ASSIGN_OR_RETURN(sim::Profile p, sim::ReadProfile(*path));
  return std::optional<sim::Profile>(std::move(p));
}

// A model's step as `flowbench benchmark` runs it: after the Session's default graph passes
// (engine/passes/graph_pass.h), so that the simulated nodes are those a profile traced. Graph
// files and synthetic models are simulated as given.
Status RunDefaultPasses(const SimFlags& f, Graph* g) {
  if (f.model.empty() || f.model.rfind("synthetic", 0) == 0 || f.no_default_passes)
    return Status::OK();
  std::vector<PassReport> reports;
  return RunGraphPasses(DefaultGraphPasses(), PassPhase::kBeforePlacement, g, PassContext{},
                        &reports);
}

Status RunSim(const SimFlags& f) {
  ASSIGN_OR_RETURN(sim::SimRunOptions options, Options(f));
  std::string profile_path;
  ASSIGN_OR_RETURN(std::optional<sim::Profile> profile, ProfileOfSpec(f.cost_model, &profile_path));
  std::string mode = f.model_mode.empty() ? "train" : f.model_mode;
  if (profile && !f.model.empty()) {
    ASSIGN_OR_RETURN(mode, sim::ProfileModelMode(*profile, profile_path, f.model_mode));
  }
  ASSIGN_OR_RETURN(sim::SimGraph graph, sim::LoadSimGraph(f.graph, f.model, f.batch, mode));
  RETURN_IF_ERROR(RunDefaultPasses(f, graph.graph.get()));
  ASSIGN_OR_RETURN(std::string platform, sim::ResolvePlatformPath(f.platform));
  sim::Simulation simulation;
  RETURN_IF_ERROR(simulation.LoadPlatform(platform));
  if (profile) {  // the profile must describe the devices it is asked to predict
    RETURN_IF_ERROR(sim::CheckProfileDevices(*profile, profile_path, simulation.devices(),
                                             platform, options.workload));
  }
  ASSIGN_OR_RETURN(sim::CostModelHandle costs, sim::MakeSimCosts(*graph.graph, graph.feed_shapes,
                                                                 f.cost_model, f.model));
  if (f.cost_model == "analytic") {  // per-op efficiencies of the platform (sim/op_time_scales.h)
    ASSIGN_OR_RETURN(auto effs, sim::OpEfficiencies(simulation.devices()));
    if (!effs.empty())
      costs.description += " (with the platform's op_time_scale and op rate properties)";
    costs.costs = sim::WithOpEfficiencies(
        std::move(costs.costs), std::move(effs),
        [cm = costs.model, g = graph.graph.get()](const Node& n) -> const OpWork* {
          const Node* orig = g->FindNode(n.name());
          return orig != nullptr && cm != nullptr ? &cm->Work(*orig) : nullptr;
        });
  }
  options.client_graph = graph.client_graph.get();  // placed as a Session places it
  ASSIGN_OR_RETURN(sim::SimResult result, simulation.Run(*graph.graph, costs.costs, options));
  nlohmann::json metrics = sim::MetricsJson(simulation, result, options, costs.description);
  sim::AddValidation(costs.measured_step_s, &metrics);
  std::cout << "cost model: " << costs.description << "\n" << sim::FormatSummary(metrics);
  if (!metrics.contains("validation"))
    std::cout << "validation: no measurement of this configuration\n";
  if (!f.metrics_json.empty()) RETURN_IF_ERROR(WriteJsonFile(f.metrics_json, metrics));
  if (!f.trace.empty()) {
    CreateParentDirectories(f.trace);
    TraceMetadata meta = DefaultTraceMetadata(TraceMode::kSim, 0, nullptr);
    std::string cmd;
    for (const std::string& a : f.argv) cmd += (cmd.empty() ? "" : " ") + a;
    meta.command_line = cmd;
    meta.seed = static_cast<int64_t>(f.seed);
    meta.host = platform;
    meta.config_json = metrics["config"].dump();
    RETURN_IF_ERROR(sim::WriteSimTrace(f.trace, simulation, result, options, meta));
    std::cout << "trace: " << f.trace << "\n";
  }
  return Status::OK();
}

FB_REGISTER_COMMAND("sim", [](CLI::App* app) {
  static SimFlags f;
  auto* cmd = app->add_subcommand("sim", "Simulate a graph on a SimGrid platform (docs/simulator.md)");
  auto* graph = cmd->add_option("--graph", f.graph, "GraphDef JSON file");
  cmd->add_option("--model", f.model, "Model builder name (experiments/models/models.h)")
      ->excludes(graph);
  cmd->add_option("--batch-size,--batch", f.batch,
                  "Batch size for --model (and for unknown dimensions of --graph Placeholders)")
      ->check(PositiveCount(kMaxBatchSize))->capture_default_str();
  cmd->add_option("--platform", f.platform, "SimGrid XML platform (file or sim/platforms name)")
      ->required();
  cmd->add_option("--placer", f.placer, "Placer name (default: the engine's default)");
  cmd->add_option("--placer-seed", f.placer_seed,
                  "Seed of --placer random (as flowbench train --placer-seed)")
      ->check(IntRange(0, INT64_MAX))->capture_default_str();
  cmd->add_option("--schedule", f.schedule, "fifo | critical-path | alap-recv")->capture_default_str();
  cmd->add_option("--replicas,--ranks", f.replicas, "Data-parallel replicas (ranks)")
      ->check(PositiveCount(kMaxTasks))->capture_default_str();
  cmd->add_option("--ps", f.ps, "Parameter servers")
      ->check(IntRange(0, kMaxTasks))->capture_default_str();
  cmd->add_option("--mode", f.mode, "sync | async | backup:B | allreduce")->capture_default_str();
  cmd->add_option("--allreduce-algorithm", f.allreduce_algorithm,
                  "libnbc (Open MPI's choice for dist-train's MPI_Iallreduce) | tuned | ring | "
                  "recursive-doubling | binomial")->capture_default_str();
  cmd->add_option("--mpi-eager-limit", f.mpi_eager_limit,
                  "platform | BYTES: MPI messages between hosts above a route's eager limit go by "
                  "MPI's rendezvous (first part, the receiver's acknowledgement, the rest: one "
                  "more round trip). platform: the links' mpi_eager_limit property; without it "
                  "65536 (Open MPI's btl_tcp_eager_limit) for allreduce rounds and none for "
                  "tensor transfers; BYTES: on every route (0: none)")
      ->capture_default_str();
  cmd->add_flag("--check-memory", f.check_memory,
                "Require a memory capacity (host property memory_bytes) on every device used");
  cmd->add_option("--model-mode", f.model_mode,
                  "Step of --model: forward, forward-backward or train (flowbench benchmark "
                  "--mode; default: the profile's mode with --cost-model profile:FILE, else train)")
      ->check(CLI::IsMember({"forward", "forward-backward", "train"}));
  cmd->add_flag("--no-default-passes", f.no_default_passes,
                "Simulate --model's graph as built, without the Session's default graph passes "
                "(as flowbench benchmark --no-default-passes)");
  cmd->add_option("--loop-iterations", f.loop_iterations,
                  "Iterations of every while loop when the cost model has no count (trace)");
  cmd->add_option("--compression", f.compression, "on | off (lossy 16-bit transfers)")
      ->capture_default_str();
  cmd->add_option("--control-plane", f.control_plane,
                  "on | off: the master's run requests and done replies as messages over the "
                  "platform's links (sim/control_plane.h)")->capture_default_str();
  cmd->add_option("--message-overhead-ns", f.message_overhead_ns,
                  "ns of handling per message received, on every host (replaces the platform's "
                  "message_overhead_ns; sim/message_cost.h)");
  cmd->add_option("--serialize-bytes-per-s", f.serialize_bytes_per_s,
                  "bytes/s of deserialisation per message received, on every host (replaces the "
                  "platform's serialize_bytes_per_s; 0: none)");
  cmd->add_option("--message-latency-ns", f.message_latency_ns,
                  "ns from a message's arrival until an idle host handles it, on every host "
                  "(replaces the platform's message_latency_ns)");
  cmd->add_option("--send-serialize-bytes-per-s", f.send_serialize_bytes_per_s,
                  "bytes/s of serialisation per message sent, on every host, on the handler of "
                  "the messages it receives (replaces the platform's send_serialize_bytes_per_s; "
                  "0: none)");
  cmd->add_option("--cost-model", f.cost_model, "analytic | measured:TRACE.h5 (means over the typical steps) | measured-mean:TRACE.h5 (every step) | profile:FILE[,threads=N][,step-costs=off] (flowbench profile; step-costs=off: fitted step correction instead of the measured executor overheads)")->capture_default_str();
  cmd->add_option("--steps", f.steps, "Steps to simulate")
      ->check(PositiveCount(kMaxSimSteps))->capture_default_str();
  cmd->add_option("--concurrent-steps", f.concurrent_steps, "Steps in flight per replica")
      ->check(PositiveCount(kMaxSimSteps))->capture_default_str();
  cmd->add_option("--stragglers", f.stragglers, "P:F: a replica step is F times slower with probability P");
  cmd->add_option("--compute-noise", f.compute_noise,
                  "off | exp:M: a worker step's compute times 1 + an exponential of mean M "
                  "(sim/step_variation.h)")->capture_default_str();
  cmd->add_option("--start-spread", f.start_spread,
                  "Seconds over which the replicas' first steps are spread: replica r starts "
                  "r * S / replicas late")->capture_default_str();
  cmd->add_option("--seed", f.seed, "Seed (stragglers, compute noise)")
      ->check(IntRange(0, INT64_MAX))->capture_default_str();
  cmd->add_option("--trace", f.trace, "Write an HDF5 trace (docs/trace-format.md)")
      ->check(OutputFileCheck());
  cmd->add_option("--metrics-json", f.metrics_json, "Write predicted metrics as JSON")
      ->check(OutputFileCheck());
  cmd->callback([] {
    if (f.graph.empty() && f.model.empty()) return Fail("sim", InvalidArgument("give --graph or --model"));
    f.argv = ProcessArgs();
    if (Status s = RunSim(f); !s.ok()) Fail("sim", s);
  });
});

}  // namespace
}  // namespace fb::apps
