// Step-time summaries of `flowbench benchmark` against hand-computed values (tf_cnn_benchmarks'
// definitions: mean speed, its standard error, 1.4826 * median absolute deviation).
#include "experiments/training/step_time_stats.h"

#include <cmath>

#include <catch2/catch.hpp>

namespace fb::experiments {
namespace {

TEST_CASE("Quantile interpolates linearly between ranks as numpy.percentile",
          "[experiments][benchmark]") {
  CHECK(Quantile({4, 1, 3, 2}, 0.5) == Approx(2.5));
  CHECK(Quantile({4, 1, 3, 2}, 0.0) == Approx(1));
  CHECK(Quantile({4, 1, 3, 2}, 1.0) == Approx(4));
  // Position 0.1 * 3 = 0.3 between 1 and 2.
  CHECK(Quantile({4, 1, 3, 2}, 0.1) == Approx(1.3));
  CHECK(Quantile({7}, 0.9) == Approx(7));
}

TEST_CASE("SummarizeStepTimes gives tf_cnn_benchmarks' mean, uncertainty and jitter",
          "[experiments][benchmark]") {
  // 10 examples per step; speeds 1000, 500, 250, 500, 1000 examples/s.
  auto s = SummarizeStepTimes({10, 20, 40, 20, 10}, 10);
  REQUIRE(s.ok());
  CHECK(s->steps == 5);
  CHECK(s->ms_median == Approx(20));
  CHECK(s->ms_p10 == Approx(10));
  CHECK(s->ms_p90 == Approx(32));  // 20 + 0.6 * (40 - 20)
  CHECK(s->ms_mean == Approx(20));
  CHECK(s->examples_per_sec_mean == Approx(650));
  // Deviations 350, -150, -400, -150, 350: population variance 90000, std 300.
  CHECK(s->examples_per_sec_uncertainty == Approx(300 / std::sqrt(5.0)));
  // |speed - 500| = 500, 0, 250, 0, 500: median 250.
  CHECK(s->examples_per_sec_jitter == Approx(1.4826 * 250));
  CHECK(s->examples_per_sec_median == Approx(500));
}

TEST_CASE("SummarizeStepTimes refuses empty, non-positive and non-finite input",
          "[experiments][benchmark]") {
  auto empty = SummarizeStepTimes({}, 10);
  REQUIRE_FALSE(empty.ok());
  CHECK_THAT(empty.status().message(), Catch::Contains("no timed steps"));
  auto zero = SummarizeStepTimes({1, 0}, 10);
  REQUIRE_FALSE(zero.ok());
  CHECK_THAT(zero.status().message(), Catch::Contains("step 1 took 0 ms"));
  auto nan = SummarizeStepTimes({std::nan("")}, 10);
  REQUIRE_FALSE(nan.ok());
  CHECK_THAT(nan.status().message(), Catch::Contains("step 0"));
  auto examples = SummarizeStepTimes({1}, 0);
  REQUIRE_FALSE(examples.ok());
  CHECK_THAT(examples.status().message(), Catch::Contains("examples per step must be >= 1"));
}

}  // namespace
}  // namespace fb::experiments
