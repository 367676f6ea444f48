// Test helpers for experiments/training/benchmark.h: LeNet at batch 2 for a few SGD steps, and
// the loss of every step of a RunBenchmark (warm-up included).
#pragma once

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "experiments/training/benchmark.h"

namespace fb::experiments::test {

// LeNet, batch 2, SGD with learning rate 0.1, 1 warm-up + `num_batches` steps on 1 thread.
inline BenchmarkOptions TinyLenet(BenchmarkMode mode, int num_batches = 3) {
  BenchmarkOptions o;
  o.model = "lenet";
  o.mode = mode;
  o.model_options.batch_size = 2;
  o.model_options.optimizer = "sgd";
  o.model_options.learning_rate = 0.1;
  o.num_batches = num_batches;
  o.num_warmup_batches = 1;
  o.threads = 1;
  return o;
}

// The loss of every step, warm-up included; the run must succeed. *result gets its result.
inline std::vector<double> Losses(const BenchmarkOptions& o, BenchmarkResult* result) {
  std::vector<double> losses;
  BenchmarkCallbacks c;
  c.step = [&](BenchmarkPhase, const StepProgress& p) { losses.push_back(p.loss); };
  auto r = RunBenchmark(o, c);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  *result = *r;
  return losses;
}

// The same, keeping only the reports of the graph passes that ran.
inline std::vector<double> Losses(const BenchmarkOptions& o,
                                  std::vector<std::string>* pass_reports) {
  BenchmarkResult r;
  std::vector<double> losses = Losses(o, &r);
  *pass_reports = r.pass_reports;
  return losses;
}

}  // namespace fb::experiments::test
