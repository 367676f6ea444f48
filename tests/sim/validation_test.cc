// Validation (issue 6): a real training run on this machine is traced, then replayed by the
// simulator with the op costs measured in that trace (--cost-model measured:TRACE.h5); the
// predicted mean step time must be within 10% of the measured one (the median is reported; on a
// loaded machine step times are heavy-tailed and the per-node means of the cost model predict
// the mean, not the median: docs/simulator.md). One process, one CPU
// device with one inter-op thread (so that the real executor, like the simulated device, runs
// one kernel at a time). The model is a 784-256-10 MLP trained with SGD on batches of 64.
#include <algorithm>
#include <cmath>

#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/optimizer.h"
#include "engine/client/random_ops.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/subgraph.h"
#include "engine/trace/trace_reader.h"
#include "engine/trace/trace_writer.h"
#include "sim/sim_costs.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

struct Mlp {
  GraphDef def;
  std::string loss, train;
};

Mlp BuildMlp() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, {64, 784});
  auto y = ops::Placeholder(root.WithOpName("y"), DataType::kFloat, {64, 10});
  auto w1 = ops::Variable(root.WithOpName("w1"), {784, 256}, DataType::kFloat);
  auto w2 = ops::Variable(root.WithOpName("w2"), {256, 10}, DataType::kFloat);
  auto i1 = ops::Assign(root, w1, ops::RandomNormal(root, {784, 256}));
  auto i2 = ops::Assign(root, w2, ops::RandomNormal(root, {256, 10}));
  ops::Group(root.WithOpName("init"), std::vector<Output>{i1, i2});
  auto h = ops::Relu(root, ops::MatMul(root, x, w1));
  auto xent = ops::SoftmaxCrossEntropyWithLogits(root, ops::MatMul(root, h, w2), y);
  auto loss = ops::Mean(root.WithOpName("loss"), xent.loss, std::vector<int>{0});
  GradientDescentOptimizer opt(0.01);
  Node* train = opt.Minimize(root.WithOpName("train"), loss, {w1, w2});
  REQUIRE(root.status().ok());
  return Mlp{root.ToGraphDef(), loss.name(), train->name()};
}

struct StepStats {
  double mean = 0, median = 0;
};
StepStats Stats(std::vector<double> v) {
  StepStats s;
  for (double x : v) s.mean += x / static_cast<double>(v.size());
  std::sort(v.begin(), v.end());
  s.median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  return s;
}

// Runs `steps` traced training steps after 3 untraced ones; returns the measured step times.
StepStats RunReal(const Mlp& m, const std::string& trace_path, int steps) {
  auto session = fb::test::MakeSession(m.def, 1, 1);
  fb::test::RunOk(session.get(), {}, {}, {"init"});
  Tensor x(DataType::kFloat, {64, 784}), y(DataType::kFloat, {64, 10});
  std::fill(x.data<float>(), x.data<float>() + 64 * 784, 0.5f);
  std::fill(y.data<float>(), y.data<float>() + 64 * 10, 0.0f);
  for (int i = 0; i < 64; ++i) y.data<float>()[i * 10 + i % 10] = 1;
  std::vector<Session::NamedTensor> feeds = {{"x", x}, {"y", y}};
  for (int i = 0; i < 3; ++i) fb::test::RunOk(session.get(), feeds, {m.loss}, {m.train});
  auto w = TraceWriter::Create(trace_path, DefaultTraceMetadata(TraceMode::kReal, 0, nullptr));
  REQUIRE(w.ok());
  RunOptions opts;
  opts.trace = true;
  std::vector<double> times;
  for (int s = 0; s < steps; ++s) {
    RunMetadata md;
    std::vector<Tensor> out;
    REQUIRE(session->Run(opts, feeds, {m.loss}, {m.train}, &out, &md).ok());
    REQUIRE((*w)->AddRunMetadata(s, md).ok());
  }
  REQUIRE((*w)->Close().ok());
  auto trace = TraceReader::Open(trace_path);
  REQUIRE(trace.ok());
  for (const StepRecord& r : trace->steps) times.push_back(static_cast<double>(r.end_ns - r.start_ns) * 1e-9);
  return Stats(times);
}

TEST_CASE("Measured cost model predicts a real run's step time within 10%", "[sim]") {
  Mlp m = BuildMlp();
  fb::test::TempDir dir;
  const std::string trace = dir.file("real.h5");
  const StepStats measured = RunReal(m, trace, 15);
  // The graph the session ran: feeds and fetches rewritten, pruned to the training step.
  auto g = Graph::FromGraphDef(m.def);
  REQUIRE(g.ok());
  RewriteResult rewrite;
  REQUIRE(RewriteGraphForExecution(g->get(), {"x:0", "y:0"}, {m.loss}, {m.train}, &rewrite).ok());
  auto costs = MakeSimCosts(**g, {}, "measured:" + trace);
  INFO(costs.status().ToString());
  REQUIRE(costs.ok());
  Simulation sim;
  REQUIRE(sim.LoadPlatform(test::PlatformPath("this_machine.xml")).ok());
  SimRunOptions opts;
  opts.workload.steps = 15;
  auto r = sim.Run(**g, costs->costs, opts);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  const StepStats predicted = Stats(r->step_times_s);
  INFO("measured mean " << measured.mean * 1e3 << " ms, median " << measured.median * 1e3
                        << " ms; predicted mean " << predicted.mean * 1e3 << " ms, median "
                        << predicted.median * 1e3 << " ms");
  CHECK(std::abs(predicted.mean - measured.mean) <= 0.10 * measured.mean);
  // Every simulated step replays the same per-node means.
  CHECK(predicted.median == Approx(predicted.mean).epsilon(1e-6));
}

}  // namespace
}  // namespace fb::sim
