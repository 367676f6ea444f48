// `flowbench place`: runs placers on a graph and prints (and writes as JSON) each placement's
// summary: the placer's time, the cost model's predicted step time, bytes crossing devices and
// peak memory per device (whitepaper 3.2.1).
//   flowbench place (--graph FILE.json | --synthetic LAYERSxWIDTH
//                    | --model NAME [--batch-size N])  (models.h; at its ModelDefaults)
//                   [--devices cpu:N | gpu:N | --device-config FILE.json] [--links FILE.json]
//                   [--placers single,round_robin,random,greedy,heft] [--feed NAME=D0,D1,...]
//                   [--measured TRACE.h5] [--seed N] [--json OUT.json]
//                   [--metrics-json OUT.json]   (one placer: its summary at the top level, for
//                                                `flowbench sweep`; several: one object each)
#include <fstream>
#include <map>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apps/command_files.h"
#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "engine/framework/device.h"
#include "engine/placement/device_config.h"
#include "engine/placement/placement_report.h"
#include "engine/trace/trace_reader.h"
#include "experiments/models/model_graph.h"
#include "experiments/models/synthetic_graph.h"

namespace fb::apps {
namespace {

struct PlaceFlags {
  std::string graph, synthetic, model, devices = "cpu:4", device_config, links, json_out, measured;
  std::string metrics_json;
  std::string placers;
  std::vector<std::string> feeds;
  uint64_t seed = 1;
  int64_t batch = 64;
};

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, sep);)
    if (!part.empty()) out.push_back(part);
  return out;
}

// The graph of --graph, --synthetic or --model; a model's input shapes go to *feed_shapes.
StatusOr<std::unique_ptr<Graph>> LoadGraph(const PlaceFlags& f,
                                           std::map<std::string, TensorShape>* feed_shapes) {
  if (f.graph.empty() + f.synthetic.empty() + f.model.empty() != 2)
    return InvalidArgument("give exactly one of --graph FILE.json, --synthetic LAYERSxWIDTH and "
                           "--model NAME");
  if (!f.model.empty()) {
    ASSIGN_OR_RETURN(experiments::ModelGraph m, experiments::BuildModelGraph(f.model, f.batch));
    *feed_shapes = std::move(m.feed_shapes);
    return std::move(m.graph);
  }
  if (!f.graph.empty()) {
    ASSIGN_OR_RETURN(GraphDef def, ReadGraphDefFile(f.graph));
    auto g = Graph::FromGraphDef(def);
    if (!g.ok()) return g.status().WithPrefix("graph file '" + f.graph + "': ");
    return g;
  }
  auto dims = Split(f.synthetic, 'x');
  SyntheticGraphOptions o;
  try {
    if (dims.size() != 2) throw std::invalid_argument("");
    o.layers = std::stoi(dims[0]);
    o.width = std::stoi(dims[1]);
  } catch (const std::exception&) {
    return InvalidArgument("--synthetic '", f.synthetic, "': expected LAYERSxWIDTH, e.g. 300x100");
  }
  // 300x100 is 30,301 nodes; 100000x100000 (10^10) ran until memory ran out.
  constexpr int64_t kMaxSyntheticNodes = 1'000'000;
  if (int64_t{o.layers} * o.width > kMaxSyntheticNodes)
    return InvalidArgument("--synthetic '", f.synthetic, "': ", int64_t{o.layers} * o.width,
                           " nodes (LAYERS x WIDTH), more than ", kMaxSyntheticNodes);
  o.seed = f.seed;
  return BuildLayeredGraph(o);
}

StatusOr<PlatformDesc> LoadPlatform(const PlaceFlags& f) {
  PlatformDesc p;
  if (!f.device_config.empty()) {
    ASSIGN_OR_RETURN(p, ReadPlatformFile(f.device_config));
  } else {
    ASSIGN_OR_RETURN(DevicesFlag flag, ParseDevicesFlag(f.devices));
    p.devices = FlagDevices(flag);
  }
  if (!f.links.empty()) RETURN_IF_ERROR(ReadLinkFile(f.links, &p.links));
  return p;
}

// "x=64,784" -> {"x", [64,784]}
Status ParseFeeds(const std::vector<std::string>& feeds, CostModelOptions* o) {
  for (const std::string& f : feeds) {
    size_t eq = f.find('=');
    if (eq == std::string::npos) return InvalidArgument("--feed '", f, "': expected NAME=D0,D1,...");
    std::vector<int64_t> dims;
    try {
      for (const std::string& d : Split(f.substr(eq + 1), ',')) dims.push_back(std::stoll(d));
    } catch (const std::exception&) {
      return InvalidArgument("--feed '", f, "': dimensions must be integers");
    }
    o->feed_shapes[f.substr(0, eq)] = TensorShape(dims);
  }
  return Status::OK();
}

// --metrics-json: the placer's summary (graph, num_nodes, placer, predicted_step_ns, ...,
// devices) at the top level when one placer ran, else {"<placer>": summary, ...}.
Status WriteMetricsJson(const std::string& path, const nlohmann::json& out) {
  nlohmann::json m;
  if (out["placers"].size() == 1) {
    m = out["placers"][0];
  } else {
    for (const auto& run : out["placers"]) m[run["placer"].get<std::string>()] = run;
  }
  m["graph"] = out["graph"];
  m["num_nodes"] = out["num_nodes"];
  return WriteJsonFile(path, m);
}

Status Place(const PlaceFlags& f) {
  CostModelOptions copts;
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, LoadGraph(f, &copts.feed_shapes));
  ASSIGN_OR_RETURN(PlatformDesc platform, LoadPlatform(f));
  RETURN_IF_ERROR(ParseFeeds(f.feeds, &copts));
  if (!f.measured.empty()) {
    ASSIGN_OR_RETURN(Trace trace, TraceReader::Open(f.measured));
    copts.measured = std::make_shared<MeasuredCosts>(MeasuredCosts::FromTrace(trace));
  }
  ASSIGN_OR_RETURN(CostModel cost, CostModel::Create(*g, platform.devices, platform.links, copts));
  std::vector<std::string> names =
      f.placers.empty() ? PlacerRegistry::Global()->Names() : Split(f.placers, ',');
  PlacerOptions popts;
  popts.seed = f.seed;
  std::vector<PlacerRun> runs;
  const std::string source = !f.graph.empty()   ? f.graph
                             : !f.model.empty() ? "model:" + f.model
                                                : "synthetic:" + f.synthetic;
  nlohmann::json out = {{"graph", source},
                        {"num_nodes", g->num_nodes()},
                        {"placers", nlohmann::json::array()}};
  for (const std::string& name : names) {
    ASSIGN_OR_RETURN(PlacerRun run, EvaluatePlacer(*g, cost, name, popts));
    out["placers"].push_back(PlacerRunToJson(run, cost));
    runs.push_back(std::move(run));
  }
  std::cout << g->num_nodes() << " nodes on " << cost.num_devices() << " devices\n"
            << FormatPlacerRuns(runs, cost);
  if (!f.metrics_json.empty()) RETURN_IF_ERROR(WriteMetricsJson(f.metrics_json, out));
  if (f.json_out.empty()) return Status::OK();
  return WriteJsonFile(f.json_out, out);
}

FB_REGISTER_COMMAND("place", [](CLI::App* app) {
  static PlaceFlags flags;
  auto* cmd = app->add_subcommand("place", "Compare placers on a graph with the cost model");
  cmd->add_option("--graph", flags.graph, "GraphDef JSON file");
  cmd->add_option("--synthetic", flags.synthetic, "Synthetic layered graph LAYERSxWIDTH");
  cmd->add_option("--model", flags.model, "Training graph of a registered model (lenet, alexnet, ...) at its default image shape");
  cmd->add_option("--batch-size,--batch", flags.batch, "Batch size of --model")
      ->check(PositiveCount(kMaxBatchSize))->capture_default_str();
  cmd->add_option("--devices", flags.devices,
                  "cpu:N devices, or gpu:N (CPU:0 and N GPUs), with default performance")
      ->capture_default_str();
  cmd->add_option("--device-config", flags.device_config, "Device config JSON (experiments/devices)");
  cmd->add_option("--links", flags.links, "Link config JSON (experiments/links)");
  cmd->add_option("--placers", flags.placers, "Comma-separated placers (default: all)");
  cmd->add_option("--feed", flags.feeds, "Shape of a fed node: NAME=D0,D1,...");
  cmd->add_option("--measured", flags.measured, "HDF5 trace of an earlier run (measured costs)");
  cmd->add_option("--seed", flags.seed, "Seed for random placement and synthetic graphs")
      ->check(IntRange(0, INT64_MAX));
  cmd->add_option("--json", flags.json_out, "Write the summaries as JSON")
      ->check(OutputFileCheck());
  cmd->add_option("--metrics-json", flags.metrics_json,
                  "Write the summary as flat metrics JSON (one placer: its summary)")
      ->check(OutputFileCheck());
  cmd->callback([] {
    if (Status s = Place(flags); !s.ok()) Fail("place", s);
  });
});

}  // namespace
}  // namespace fb::apps
