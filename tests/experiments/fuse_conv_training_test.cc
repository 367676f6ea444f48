// The fuse_conv_bias_relu pass (engine/passes/fuse_conv_bias_relu.h) on a training step: the
// gradient graph is built before the pass (ReluGrad reads the Relu's output, which the fused node
// produces), so lenet's losses over several SGD steps must equal the unfused graph's bit for bit.
#include <algorithm>

#include <catch2/catch.hpp>

#include "experiments/training/benchmark.h"
#include "tests/experiments/tiny_lenet.h"

namespace fb::experiments {
namespace {

std::vector<double> LenetLosses(BenchmarkMode mode, bool fuse, std::vector<std::string>* reports) {
  BenchmarkOptions o = test::TinyLenet(mode);
  if (fuse) o.passes = {"fuse_conv_bias_relu"};
  return test::Losses(o, reports);
}

TEST_CASE("fuse_conv_bias_relu keeps lenet's training losses bit for bit",
          "[experiments][passes][fuse_conv]") {
  for (BenchmarkMode mode : {BenchmarkMode::kForwardBackward, BenchmarkMode::kTrain}) {
    INFO(BenchmarkModeName(mode));
    std::vector<std::string> fused_reports, plain_reports;
    std::vector<double> fused = LenetLosses(mode, true, &fused_reports);
    std::vector<double> plain = LenetLosses(mode, false, &plain_reports);
    REQUIRE(fused.size() >= 3);
    CHECK(fused == plain);
    if (mode == BenchmarkMode::kTrain) CHECK(fused.back() != fused.front());  // updates applied
    // Both convolutions fuse with their BiasAdd and Relu; the default passes report as before.
    CHECK(std::count(fused_reports.begin(), fused_reports.end(),
                     "fuse_conv_bias_relu: 2 changes") == 1);
    CHECK(std::count(plain_reports.begin(), plain_reports.end(),
                     "fuse_conv_bias_relu: 2 changes") == 0);
  }
}

}  // namespace
}  // namespace fb::experiments
