// `flowbench run`: runs a GraphDef JSON file once with NumPy .npy feeds and writes each fetched
// tensor to OUT/<node>_<port>.npy.
//   flowbench run --graph G.json --feed x:0=x.npy --fetch y:0 [--target init] --out DIR
//                 [--threads N] [--timeout SECONDS]
// A step that has not finished after --timeout seconds (default 600, 0: none) is cancelled
// (Session::Run's RunOptions::timeout_in_ms): the command exits 1 naming the nodes still pending
// (a dequeue from a queue nothing fills, a Recv) or the loop node it stopped at. Should the step
// not wind down within kCancelGraceS after that, the command still exits 1 with that list.
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "apps/commands.h"
#include "apps/flag_checks.h"
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
  double timeout_s = 600;
};

// How long a cancelled step may take to wind down before the command exits anyway.
constexpr double kCancelGraceS = 10;

// Runs the step under a watchdog: Session::Run cancels it at the deadline; if it still has not
// returned kCancelGraceS later (a kernel that cannot be cancelled), the process exits 1 after
// printing the pending nodes.
Status RunWithDeadline(Session* session, const RunArgs& a,
                       const std::vector<Session::NamedTensor>& feeds,
                       std::vector<Tensor>* outputs) {
  RunOptions options;
  if (a.timeout_s <= 0) return session->Run(options, feeds, a.fetches, a.targets, outputs, nullptr);
  options.timeout_in_ms = std::max<int64_t>(1, std::llround(a.timeout_s * 1000));
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  Status deadline;
  options.on_deadline = [&](const Status& s) {
    std::lock_guard<std::mutex> l(mu);
    deadline = s;
  };
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> l(mu);
    const auto limit = std::chrono::duration<double>(a.timeout_s + kCancelGraceS);
    if (cv.wait_for(l, limit, [&] { return finished; })) return;
    std::cerr << "flowbench run: --timeout " << a.timeout_s << " s: "
              << (deadline.ok() ? std::string("the step did not finish") : deadline.ToString())
              << "; the step did not stop within " << kCancelGraceS
              << " s of the deadline, exiting" << std::endl;
    std::_Exit(1);
  });
  Status s = session->Run(options, feeds, a.fetches, a.targets, outputs, nullptr);
  {
    std::lock_guard<std::mutex> l(mu);
    finished = true;
  }
  cv.notify_all();
  watchdog.join();
  if (s.code() == Code::kDeadlineExceeded)
    return s.WithPrefix(fmt::format("--timeout {} s: ", a.timeout_s));
  return s;
}

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
  RETURN_IF_ERROR(RunWithDeadline(session.get(), a, feeds, &outputs));
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
  cmd->add_option("--threads", args.threads, "inter-op threads")
      ->check(PositiveCount(kMaxThreads))->capture_default_str();
  cmd->add_option("--timeout", args.timeout_s,
                  "seconds before an unfinished step is cancelled and reported (0: none)")
      ->check(FiniteRange(0, 1e7))->capture_default_str();
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
