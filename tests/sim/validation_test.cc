// Validation (issue 6): real LeNet-5 training runs on this machine are traced, then replayed by
// the simulator with the costs measured in that trace (`flowbench sim --cost-model
// measured:TRACE.h5`: per-node means, transfer deliveries and control-plane latencies over the
// typical steps, sim/sim_costs.h); the predicted median step time must be within 10% of the
// measured median.
//  - one process (experiments/models/models.h, Adam, batches of 32), one CPU device with one thread (so
//    that the real executor, like the simulated device, runs one kernel at a time);
//  - `mpirun -np 2|4 flowbench dist-train --model lenet` (one parameter server, 1 or 3 workers,
//    synchronous replication, 32 examples per worker), replayed from the graph it exports on
//    `flowbench sim-platform mpi-node:ps=1,worker=W --cores 0` (one host per rank, a whole CPU
//    each: the run's own trace already holds the ranks' sharing of the cores).
//
// Tagged [serial]: CTest runs them alone (cmake/FlowbenchTests.cmake). A shared machine still
// preempts steps now and then; a measurement is repeated (at most three times) when one attempt
// misses the bound, and every attempt is reported.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "engine/runtime/subgraph.h"
#include "engine/trace/trace_reader.h"
#include "engine/trace/trace_writer.h"
#include "experiments/models/models.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

constexpr int kBatch = 32, kSteps = 25;

experiments::Model BuildLeNet() {
  experiments::ModelOptions o;
  o.batch_size = kBatch;
  auto m = experiments::BuildModel("lenet", o);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  return std::move(*m);
}

std::vector<Session::NamedTensor> Feeds(const experiments::Model& m) {
  Tensor images(DataType::kFloat, {kBatch, 28, 28, 1}), labels(DataType::kInt32, {kBatch});
  for (int64_t i = 0; i < images.NumElements(); ++i) images.data<float>()[i] = (i % 97) / 97.f;
  for (int i = 0; i < kBatch; ++i) labels.data<int32_t>()[i] = i % 10;
  return {{m.images, images}, {m.labels, labels}};
}

// Runs kSteps traced training steps after 3 untraced ones into `trace_path`.
void RunReal(const experiments::Model& m, const std::string& trace_path) {
  auto session = fb::test::MakeSession(m.scope.ToGraphDef(), 1, 1);
  fb::test::RunOk(session.get(), {}, {}, {m.init});
  const auto feeds = Feeds(m);
  for (int i = 0; i < 3; ++i) fb::test::RunOk(session.get(), feeds, {m.loss}, {m.train_op});
  auto w = TraceWriter::Create(trace_path, DefaultTraceMetadata(TraceMode::kReal, 0, nullptr));
  REQUIRE(w.ok());
  RunOptions opts;
  opts.trace = true;
  for (int s = 0; s < kSteps; ++s) {
    RunMetadata md;
    std::vector<Tensor> out;
    REQUIRE(session->Run(opts, feeds, {m.loss}, {m.train_op}, &out, &md).ok());
    REQUIRE((*w)->AddRunMetadata(s, md).ok());
  }
  REQUIRE((*w)->Close().ok());
}

// Runs `flowbench sim <args>` in its own process (SimGrid keeps global state, so one process
// runs one simulation) and returns the "validation" object of its metrics.
nlohmann::json SimValidation(const std::string& args, const std::string& out_prefix) {
  const std::string metrics_path = out_prefix + ".json";
  const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench sim " + args +
                          " --metrics-json " + metrics_path + " > " + out_prefix + ".txt 2>&1";
  INFO(cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(metrics_path);
  const nlohmann::json metrics = nlohmann::json::parse(in);
  REQUIRE(metrics.contains("validation"));
  return metrics["validation"];
}

// Up to three attempts of `attempt` (which returns a validation object) until one is within 10%.
void CheckWithinTenPercent(const std::function<nlohmann::json(int)>& attempt) {
  std::vector<double> errors;
  for (int a = 0; a < 3; ++a) {
    nlohmann::json v = attempt(a);
    errors.push_back(v["error_median"].get<double>());
    UNSCOPED_INFO("attempt " << a << ": measured median "
                             << v["measured_median_step_time_s"].get<double>() * 1e3
                             << " ms (mean " << v["measured_mean_step_time_s"].get<double>() * 1e3
                             << " ms), prediction error " << errors.back() * 100 << " %");
    if (std::abs(errors.back()) <= 0.10) break;
  }
  CHECK(std::abs(errors.back()) <= 0.10);
}

// One attempt: measure, then replay the graph the session ran (feeds and fetches rewritten,
// pruned to the training step).
nlohmann::json Attempt(const experiments::Model& m, const fb::test::TempDir& dir, int attempt) {
  const std::string tag = std::to_string(attempt);
  const std::string trace = dir.file("real" + tag + ".h5"), graph = dir.file("graph.json");
  RunReal(m, trace);
  auto g = Graph::FromGraphDef(m.scope.ToGraphDef());
  REQUIRE(g.ok());
  RewriteResult rewrite;
  REQUIRE(RewriteGraphForExecution(g->get(), {m.images, m.labels}, {m.loss}, {m.train_op},
                                   &rewrite)
              .ok());
  REQUIRE(WriteGraphDefFile((*g)->ToGraphDef(), graph).ok());
  nlohmann::json v = SimValidation("--graph " + graph + " --platform " +
                                       test::PlatformPath("this_machine.xml") +
                                       " --cost-model measured:" + trace,
                                   dir.file("sim" + tag));
  CHECK(v["measured_steps"] == kSteps);
  return v;
}

TEST_CASE("Measured cost model predicts a real LeNet run's median step time within 10%",
          "[sim][serial]") {
  const experiments::Model m = BuildLeNet();
  fb::test::TempDir dir;
  CheckWithinTenPercent([&](int attempt) { return Attempt(m, dir, attempt); });
}

#ifdef FB_MPIRUN_LINE
// One attempt with `ranks` MPI ranks: a traced dist-train run, then its replay.
nlohmann::json MpiAttempt(int ranks, const fb::test::TempDir& dir, int attempt) {
  const std::string tag = std::to_string(ranks) + "_" + std::to_string(attempt);
  const std::string trace = dir.file("dist" + tag + ".h5"), graph = dir.file("dist" + tag + ".json");
  const std::string platform = dir.file("node" + tag + ".xml");
  const std::string flowbench = std::string(FB_BINARY_DIR) + "/flowbench";
  const std::string train = std::string(FB_MPIRUN_LINE) + " -np " + std::to_string(ranks) + " " +
                            flowbench + " dist-train --model lenet --lr 0.05 --batch " +
                            std::to_string(kBatch) + " --steps 40 --trace " + trace +
                            " --export-graph " + graph + " > " + dir.file("dist" + tag + ".txt") +
                            " 2>&1";
  INFO(train);
  REQUIRE(std::system(train.c_str()) == 0);
  // --cores 0: the trace of this very run already holds the ranks' sharing of the cores.
  const std::string jobs = "mpi-node:ps=1,worker=" + std::to_string(ranks - 1) + " --cores 0";
  REQUIRE(std::system((flowbench + " sim-platform " + jobs + " " + platform).c_str()) == 0);
  nlohmann::json v = SimValidation("--graph " + graph + " --platform " + platform +
                                       " --batch " + std::to_string(kBatch) +
                                       " --cost-model measured:" + trace,
                                   dir.file("distsim" + tag));
  CHECK(v["measured_steps"] == 40);
  return v;
}

TEST_CASE("Measured cost model predicts 2- and 4-rank LeNet runs' median step time within 10%",
          "[sim][mpi][serial]") {
  fb::test::TempDir dir;
  for (int ranks : {2, 4}) {
    INFO(ranks << " ranks");
    CheckWithinTenPercent([&](int attempt) { return MpiAttempt(ranks, dir, attempt); });
  }
}
#endif

}  // namespace
}  // namespace fb::sim
