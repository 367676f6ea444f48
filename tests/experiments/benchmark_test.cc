// The measurement loop of `flowbench benchmark`: every mode runs the model at its default input
// shape and reports times, parameters, peak memory; forward-backward computes gradients without
// updating the weights; a dataset must fit the model.
#include "experiments/training/benchmark.h"

#include <cmath>

#include <catch2/catch.hpp>

#include "datasets/synthetic.h"
#include "tests/experiments/tiny_lenet.h"

namespace fb::experiments {
namespace {

using test::Losses;
using test::TinyLenet;

TEST_CASE("RunBenchmark times lenet in every mode at a tiny batch", "[experiments][benchmark]") {
  for (BenchmarkMode mode :
       {BenchmarkMode::kForward, BenchmarkMode::kForwardBackward, BenchmarkMode::kTrain}) {
    INFO(BenchmarkModeName(mode));
    BenchmarkResult r;
    std::vector<double> losses = Losses(TinyLenet(mode), &r);
    CHECK(losses.size() == 4);  // 1 warm-up + 3 timed
    CHECK(r.step_ms.size() == 3);
    CHECK(r.stats.steps == 3);
    CHECK(r.stats.examples_per_sec_mean > 0);
    CHECK(r.total_examples_per_sec > 0);
    CHECK(r.examples_per_step == 2);
    CHECK(r.example_unit == "images");
    CHECK(r.data == "synthetic");
    CHECK(r.image_shape == std::vector<int64_t>{28, 28, 1});
    // conv1 5*5*1*6+6, conv2 5*5*6*16+16, fc1 400*120+120, fc2 120*84+84, logits 84*10+10.
    CHECK(r.parameter_count == 156 + 2416 + 48120 + 10164 + 850);
    REQUIRE(r.peak_bytes.size() == 1);
    // At least the weights (4 bytes each) are resident during a step.
    CHECK(r.peak_bytes.begin()->second >= 4 * r.parameter_count);
    CHECK(r.peak_rss_bytes > 0);
    CHECK(std::isnan(r.final_loss) == (mode == BenchmarkMode::kForward));
  }
}

TEST_CASE(
    "Benchmark forward-backward leaves the weights alone and train "
    "updates them",
    "[experiments][benchmark]") {
  BenchmarkResult r;
  // Same batch every step: the loss changes only if the weights do.
  std::vector<double> fb = Losses(TinyLenet(BenchmarkMode::kForwardBackward), &r);
  for (double loss : fb) CHECK(loss == fb[0]);
  std::vector<double> train = Losses(TinyLenet(BenchmarkMode::kTrain), &r);
  CHECK(train[0] == fb[0]);  // the same initial weights and batch
  CHECK(train.back() < train[0]);
}

TEST_CASE("RunBenchmark feeds token ids to a word language model and counts words",
          "[experiments][benchmark]") {
  for (const char* model : {"lstm_lm_word", "lstm_lm_word_unrolled"}) {
    INFO(model);
    BenchmarkOptions o = TinyLenet(BenchmarkMode::kTrain);
    o.model = model;
    WordLmOptions& w = o.model_options.word_lm;
    w.vocab_size = 50;
    w.num_steps = 5;
    w.embedding_size = w.lstm_cells = w.projection_size = 8;
    BenchmarkResult r;
    std::vector<double> losses = Losses(o, &r);
    CHECK(r.example_unit == "words");
    CHECK(r.examples_per_step == 2 * 5);
    CHECK(r.num_classes == 50);
    CHECK(r.image_shape == std::vector<int64_t>{5});
    CHECK(losses.front() == Approx(std::log(50.0)).epsilon(0.1));  // uniform at start
    CHECK(losses.back() < losses.front());
    // FLOPs are counted only where every iteration is in the graph (the unrolled variant).
    CHECK(r.forward_flops_per_example.has_value() == (std::string(model) != "lstm_lm_word"));
  }
}

TEST_CASE("RunBenchmark reads a dataset of the model's input shape", "[experiments][benchmark]") {
  datasets::SyntheticOptions so;
  so.num_examples = 8;
  auto data = datasets::MakeSyntheticDataset(so);
  REQUIRE(data.ok());
  BenchmarkOptions o = TinyLenet(BenchmarkMode::kTrain);
  o.dataset = *data;
  auto r = RunBenchmark(o);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->data == (*data)->name);
  CHECK(std::isfinite(r->final_loss));
}

TEST_CASE(
    "RunBenchmark refuses a dataset that does not fit and bad counts "
    "naming them",
    "[experiments][benchmark]") {
  datasets::SyntheticOptions so;
  so.num_examples = 8;
  so.image_shape = {32, 32, 3};
  auto data = datasets::MakeSyntheticDataset(so);
  REQUIRE(data.ok());
  BenchmarkOptions o = TinyLenet(BenchmarkMode::kTrain);
  o.dataset = *data;
  auto shape = RunBenchmark(o);
  REQUIRE_FALSE(shape.ok());
  CHECK_THAT(shape.status().message(), Catch::Contains("[32,32,3]") &&
                                           Catch::Contains("[28,28,1]") &&
                                           Catch::Contains("lenet"));

  so.image_shape = {28, 28, 1};
  so.num_examples = 1;
  o.dataset = *datasets::MakeSyntheticDataset(so);
  auto small = RunBenchmark(o);
  REQUIRE_FALSE(small.ok());
  CHECK_THAT(small.status().message(), Catch::Contains("fewer than one batch of 2"));

  o = TinyLenet(BenchmarkMode::kTrain);
  o.num_batches = 0;
  auto batches = RunBenchmark(o);
  REQUIRE_FALSE(batches.ok());
  CHECK_THAT(batches.status().message(), Catch::Contains("num_batches must be >= 1, got 0"));

  o = TinyLenet(BenchmarkMode::kTrain);
  o.model = "nosuch";
  auto model = RunBenchmark(o);
  REQUIRE_FALSE(model.ok());
  CHECK_THAT(model.status().message(),
             Catch::Contains("nosuch") && Catch::Contains("lenet") && Catch::Contains("mlp"));
}

TEST_CASE("ParseBenchmarkMode reads every mode name and refuses others",
          "[experiments][benchmark]") {
  for (BenchmarkMode m :
       {BenchmarkMode::kForward, BenchmarkMode::kForwardBackward, BenchmarkMode::kTrain}) {
    auto parsed = ParseBenchmarkMode(BenchmarkModeName(m));
    REQUIRE(parsed.ok());
    CHECK(*parsed == m);
  }
  auto bad = ParseBenchmarkMode("fwd");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(),
             Catch::Contains("'fwd'") && Catch::Contains("forward-backward"));
}

}  // namespace
}  // namespace fb::experiments
