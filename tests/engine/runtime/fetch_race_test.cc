// Regression test: fetching many variables placed on several CPU devices (the random placer, with
// and without the compression pass, as `flowbench train --devices cpu:4 --placer random` does at
// its end) must return every fetch on every step. The _Fetch kernels all sit on CPU:0 but each
// runs where its _Recv completed, i.e. on the sending device's thread, so the CallFrame records
// distinct fetches concurrently (a std::vector<bool> of "set" flags lost one now and then:
// "fetch 'fc2/weights:0' produced no value").
#include <chrono>

#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/session.h"
#include "tests/test_util.h"

namespace fb {
namespace {

constexpr int kNumVariables = 8;

struct Model {
  GraphDef graph;
  std::vector<std::string> variables, inits, updates;
};

// kNumVariables variables of 64 floats; each update adds a constant (a float edge that may cross
// devices and so be compressed).
Model BuildModel() {
  Scope root = Scope::NewRootScope();
  Model m;
  for (int i = 0; i < kNumVariables; ++i) {
    std::string name = "v" + std::to_string(i);
    auto v = ops::Variable(root.WithOpName(name), TensorShape({64}), DataType::kFloat);
    auto zero = ops::Const(root.WithOpName(name + "/zero"), std::vector<float>(64, 0.f),
                           TensorShape({64}));
    auto one = ops::Const(root.WithOpName(name + "/one"), std::vector<float>(64, 1.f),
                          TensorShape({64}));
    auto scaled = ops::Mul(root.WithOpName(name + "/scaled"), one, one);
    ops::Assign(root.WithOpName(name + "/init"), v, zero);
    ops::AssignAdd(root.WithOpName(name + "/update"), v, scaled);
    m.variables.push_back(name + ":0");
    m.inits.push_back(name + "/init");
    m.updates.push_back(name + "/update");
  }
  REQUIRE(root.ok());
  m.graph = root.ToGraphDef();
  return m;
}

TEST_CASE("Session returns every fetch when the fetches finish on several threads",
          "[runtime][session][fetch]") {
  const Model m = BuildModel();
  const auto start = std::chrono::steady_clock::now();
  // Bounded by time (the race needs many steps to show): about 3 s in a Release build.
  for (uint64_t seed = 1; std::chrono::steady_clock::now() - start < std::chrono::seconds(3);
       ++seed) {
    SessionOptions opts;
    opts.device_options.num_cpu_devices = 4;
    opts.device_options.threads_per_cpu = 2;
    opts.placer = "random";
    opts.placer_seed = seed;
    if (seed % 2 == 0) opts.passes = {"compression"};
    auto s = Session::Create(opts);
    REQUIRE(s.ok());
    Session& session = **s;
    REQUIRE(session.Extend(m.graph).ok());
    std::vector<Tensor> out;
    REQUIRE(session.Run({}, {}, m.inits, &out).ok());
    for (int step = 1; step <= 20; ++step) {
      Status st = session.Run({}, {}, m.updates, &out);
      INFO("seed " << seed << (seed % 2 == 0 ? " (compression)" : "") << " step " << step << ": "
                   << st.ToString());
      REQUIRE(st.ok());
      st = session.Run({}, m.variables, {}, &out);
      INFO("fetch: " << st.ToString());
      REQUIRE(st.ok());
      REQUIRE(out.size() == kNumVariables);
      for (const Tensor& t : out) CHECK(test::Values<float>(t)[0] == static_cast<float>(step));
    }
  }
}

}  // namespace
}  // namespace fb
