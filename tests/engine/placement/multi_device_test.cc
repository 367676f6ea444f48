// Multi-device execution end to end: an MLP trained with Momentum on 4 CPU devices
// (`--devices cpu:4`) under each placer gives bit-identical losses to 1 device; with lossy
// compression (5.5) the losses stay within a stated tolerance.
#include <cmath>

#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb {
namespace {

constexpr int kBatch = 32, kIn = 20, kHidden = 16, kClasses = 5, kSteps = 8;

// Deterministic pseudo-random values in [-1, 1) (a linear congruential sequence).
std::vector<float> Values(int n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / static_cast<float>(1 << 23) - 1.f;
  }
  return v;
}

Output Param(const Scope& root, const std::string& name, const TensorShape& shape, uint32_t seed,
             std::vector<Output>* inits, std::vector<Output>* vars) {
  auto v = ops::Variable(root.WithOpName(name), shape, DataType::kFloat);
  int n = static_cast<int>(shape.num_elements());
  std::vector<float> init = Values(n, seed);
  for (float& x : init) x *= 0.3f;
  inits->push_back(ops::Assign(root.WithOpName(name + "/init"), v, ops::Const(root, init, shape)));
  vars->push_back(v);
  return v;
}

// The training target's name goes to *train_name.
GraphDef Mlp(std::string* train_name) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> inits, vars;
  auto x = ops::Const(root.WithOpName("x"), Values(kBatch * kIn, 1), TensorShape({kBatch, kIn}));
  std::vector<float> onehot(kBatch * kClasses, 0.f);
  for (int i = 0; i < kBatch; ++i) onehot[static_cast<size_t>(i * kClasses + i % kClasses)] = 1.f;
  auto labels = ops::Const(root.WithOpName("labels"), onehot, TensorShape({kBatch, kClasses}));
  auto w1 = Param(root, "w1", TensorShape({kIn, kHidden}), 2, &inits, &vars);
  auto b1 = Param(root, "b1", TensorShape({kHidden}), 3, &inits, &vars);
  auto w2 = Param(root, "w2", TensorShape({kHidden, kClasses}), 4, &inits, &vars);
  auto b2 = Param(root, "b2", TensorShape({kClasses}), 5, &inits, &vars);
  auto h = ops::Relu(root, ops::BiasAdd(root, ops::MatMul(root, x, w1), b1));
  auto logits = ops::BiasAdd(root, ops::MatMul(root, h, w2), b2);
  auto xent = ops::SoftmaxCrossEntropyWithLogits(root, logits, labels);
  ops::Mean(root.WithOpName("loss"), xent.loss, std::vector<int>{0});
  MomentumOptimizer opt(0.5, 0.9);
  Node* train = opt.Minimize(root.WithOpName("train"), root.graph()->FindNode("loss"), vars);
  REQUIRE(train);
  *train_name = train->name();
  ops::Group(root.WithOpName("init"), Concat(inits, opt.initializers()));
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  return root.ToGraphDef();
}

struct Curve {
  std::vector<float> losses;
  std::vector<std::string> reports;
  int num_send_recv_pairs = 0;
};

Curve Train(int devices, const std::string& placer, const std::vector<std::string>& passes = {}) {
  SessionOptions opts;
  opts.device_options.num_cpu_devices = devices;
  opts.device_options.threads_per_cpu = 1;
  opts.placer = placer;
  opts.passes = passes;
  opts.default_passes = false;  // the listed passes alone: their reports, the same graph
  auto s = Session::Create(opts);
  REQUIRE(s.ok());
  std::string train;
  REQUIRE((*s)->Extend(Mlp(&train)).ok());
  std::vector<Tensor> out;
  Status st = (*s)->Run({}, {}, {"init"}, &out);
  INFO(st.ToString());
  REQUIRE(st.ok());
  Curve c;
  for (int i = 0; i < kSteps; ++i) {
    RunMetadata md;
    st = (*s)->Run(RunOptions(), {}, {"loss:0"}, {train}, &out, &md);
    INFO(st.ToString());
    REQUIRE(st.ok());
    c.losses.push_back(out[0].scalar<float>());
    c.reports = md.pass_reports;
    c.num_send_recv_pairs = md.num_send_recv_pairs;
  }
  return c;
}

TEST_CASE("Training on 4 CPU devices gives the 1-device loss curve bit for bit",
          "[placement][multi_device]") {
  Curve one = Train(1, "single");
  CHECK(one.losses.back() < one.losses.front());  // it learns
  CHECK(one.num_send_recv_pairs == 0);
  for (const char* placer : {"greedy", "round_robin", "heft", "random"}) {
    Curve four = Train(4, placer);
    INFO(placer);
    CHECK(four.losses == one.losses);
    if (std::string(placer) == "round_robin") CHECK(four.num_send_recv_pairs > 0);
  }
}

TEST_CASE("With lossy compression the 4-device loss curve stays within 2% of 1 device",
          "[placement][multi_device][compression]") {
  Curve one = Train(1, "single");
  Curve lossy = Train(4, "round_robin", {"compression"});
  REQUIRE(lossy.reports.size() == 1);
  CHECK_THAT(lossy.reports[0], Catch::StartsWith("compression: "));
  CHECK_THAT(lossy.reports[0], !Catch::StartsWith("compression: 0 changes"));
  for (int i = 0; i < kSteps; ++i) {
    INFO("step " << i << ": " << one.losses[i] << " vs " << lossy.losses[i]);
    CHECK(std::abs(lossy.losses[i] - one.losses[i]) <= 0.02 * std::abs(one.losses[i]));
  }
}

}  // namespace
}  // namespace fb
