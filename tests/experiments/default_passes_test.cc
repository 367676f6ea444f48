// The Session's default graph passes (engine/passes/graph_pass.h DefaultGraphPasses) on a
// registered model, as `flowbench benchmark` runs it: the same losses with and without them,
// and fewer nodes (what each pass changed is reported).
#include <cmath>

#include <catch2/catch.hpp>

#include "experiments/training/benchmark.h"
#include "tests/experiments/tiny_lenet.h"

namespace fb::experiments {
namespace {

// The losses of `mode` on lenet (batch 2), and the pass reports, with and without the passes.
std::vector<double> LenetLosses(BenchmarkMode mode, bool default_passes,
                                std::vector<std::string>* reports) {
  BenchmarkOptions o = test::TinyLenet(mode, 2);
  o.default_passes = default_passes;
  return test::Losses(o, reports);
}

TEST_CASE("Default passes shrink lenet's step and keep its losses", "[experiments][passes]") {
  for (BenchmarkMode mode : {BenchmarkMode::kForwardBackward, BenchmarkMode::kTrain}) {
    INFO(BenchmarkModeName(mode));
    std::vector<std::string> with_reports, without_reports;
    std::vector<double> with = LenetLosses(mode, true, &with_reports);
    std::vector<double> without = LenetLosses(mode, false, &without_reports);
    CHECK(with == without);
    CHECK(without_reports.empty());
    // lenet: 5 Shape nodes of the gradients (Conv2DBackpropInput sizes, the loss's mean)
    // become Consts, 18 Identities go (mostly the gradient gate's; the 10 Variable reads stay)
    // and the mean's ReducedShape is folded.
    CHECK(with_reports == std::vector<std::string>{"materialize_shapes: 5 changes",
                                                   "identity_removal: 18 changes",
                                                   "constant_folding: 1 change"});
  }
}

}  // namespace
}  // namespace fb::experiments
