// `flowbench run`: runs a GraphDef JSON file once with NumPy .npy feeds and writes each fetched
// tensor to OUT/<node>_<port>.npy (issue 2, item 5).
//   flowbench run --graph G.json --feed x:0=x.npy --fetch y:0 [--target init] --out DIR
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "apps/commands.h"
#include "engine/framework/echo_input.h"
#include "engine/graph/node_def.h"
#include "engine/io/npy.h"
#include "engine/runtime/session.h"

namespace fb::apps {
namespace {

struct RunArgs {
  std::string graph;
  std::vector<std::string> feeds, fetches, targets;
  std::string out = ".";
  int threads = 2;
};

// "name:port=file.npy" -> {"name:port", tensor}.
StatusOr<Session::NamedTensor> ParseFeed(const std::string& spec) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    return InvalidArgument("--feed '", spec, "' must look like NAME:PORT=FILE.npy");
  }
  ASSIGN_OR_RETURN(Tensor t, ReadNpy(spec.substr(eq + 1)));
  return Session::NamedTensor{spec.substr(0, eq), std::move(t)};
}

std::string OutputFileName(const std::string& fetch) {
  std::string name = fetch;
  for (char& c : name) {
    if (c == ':' || c == '/') c = '_';
  }
  return name + ".npy";
}

Status RunGraph(const RunArgs& a) {
  ASSIGN_OR_RETURN(GraphDef def, ReadGraphDefFile(a.graph));
  std::vector<Session::NamedTensor> feeds;
  for (const auto& spec : a.feeds) {
    ASSIGN_OR_RETURN(Session::NamedTensor feed, ParseFeed(spec));
    feeds.push_back(std::move(feed));
  }
  SessionOptions opts;
  opts.device_options.threads_per_cpu = a.threads;
  ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(opts));
  RETURN_IF_ERROR(session->Extend(def).WithPrefix(a.graph + ": "));
  std::vector<Tensor> outputs;
  RETURN_IF_ERROR(session->Run(feeds, a.fetches, a.targets, &outputs));
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) return InvalidArgument("cannot create --out directory ", a.out, ": ", ec.message());
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path = (std::filesystem::path(a.out) / OutputFileName(a.fetches[i])).string();
    RETURN_IF_ERROR(WriteNpy(outputs[i], path));
    std::cout << fmt::format("{} -> {} ({})\n", a.fetches[i], path, outputs[i].TypeAndShapeString());
  }
  return session->Close();
}

FB_REGISTER_COMMAND("run", [](CLI::App* app) {
  static RunArgs args;
  auto* cmd = app->add_subcommand("run", "Run a GraphDef JSON file with .npy feeds and fetches");
  cmd->add_option("--graph", args.graph, "GraphDef JSON file (docs/graph-format.md)")->required();
  cmd->add_option("--feed", args.feeds, "NAME:PORT=FILE.npy (repeatable)");
  cmd->add_option("--fetch", args.fetches, "NAME:PORT to fetch (repeatable)");
  cmd->add_option("--target", args.targets, "node to run for its effect (repeatable)");
  cmd->add_option("--out", args.out, "directory for the fetched tensors (NAME_PORT.npy)");
  cmd->add_option("--threads", args.threads, "inter-op threads")->check(CLI::PositiveNumber);
  cmd->callback([]() {
    if (args.fetches.empty() && args.targets.empty()) {
      Fail("run", InvalidArgument("nothing to run: give at least one --fetch or --target"));
      return;
    }
    // Messages quote the graph file (node names, attrs, devices): bound what reaches the terminal.
    Status s = CapMessage(RunGraph(args));
    if (!s.ok()) Fail("run", s);
  });
});

}  // namespace
}  // namespace fb::apps
