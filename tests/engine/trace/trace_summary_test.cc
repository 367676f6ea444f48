#include "engine/trace/trace_summary.h"

#include <catch2/catch.hpp>

#include "tests/engine/trace/small_trace.h"

namespace fb {
namespace {

// Hand-computed from SmallTrace: MatMul a 100 us; Relu b 10 us + c 50 us; _Recv r 100 us.
TEST_CASE("Trace summary: time per op type, device busy time, step times", "[trace]") {
  TraceSummary s = SummarizeTrace(test::SmallTrace());
  CHECK(s.total_event_ns == 260'000);
  REQUIRE(s.ops.size() == 3);
  CHECK(s.ops[0].op == "MatMul");  // ties with _Recv at 100 us; first seen first
  CHECK(s.ops[0].count == 1);
  CHECK(s.ops[0].total_ns == 100'000);
  CHECK(s.ops[1].op == "_Recv");
  CHECK(s.ops[2].op == "Relu");
  CHECK(s.ops[2].count == 2);
  CHECK(s.ops[2].total_ns == 60'000);
  CHECK(s.ops[2].fraction == Approx(60.0 / 260.0));
  REQUIRE(s.devices.size() == 2);
  // CPU:0 runs a [0,100], b [10,20], r [50,150]: busy = union = 150 us over a 150 us span.
  CHECK(s.devices[0].device == "/device:CPU:0");
  CHECK(s.devices[0].events == 3);
  CHECK(s.devices[0].busy_ns == 150'000);
  CHECK(s.devices[0].span_ns == 150'000);
  CHECK(s.devices[1].busy_ns == 50'000);
  // No /steps rows: step 0 spans 0-150 us, step 1 200-250 us.
  CHECK(s.steps.count == 2);
  CHECK(s.steps.median_ns == 100'000);
  CHECK(s.steps.min_ns == 50'000);
  CHECK(s.steps.max_ns == 150'000);

  std::string text = FormatTraceSummary(s, 2);
  CHECK_THAT(text, Catch::Contains("MatMul"));
  CHECK_THAT(text, Catch::Contains("0.100"));  // MatMul total ms
  CHECK_THAT(text, Catch::Contains("(1 more op types)"));
  CHECK_THAT(text, Catch::Contains("median 0.100 ms"));
}

TEST_CASE("Trace summary prefers /steps rows for step times", "[trace]") {
  Trace t = test::SmallTrace();
  t.steps = {{0, 0, 0, 1000, 0.0}, {1, 0, 1000, 4000, 0.0}, {2, 0, 4000, 6000, 0.0}};
  TraceSummary s = SummarizeTrace(t);
  CHECK(s.steps.count == 3);
  CHECK(s.steps.median_ns == 2000);
  CHECK(s.steps.mean_ns == Approx(2000));
  CHECK(Median({4, 1, 3, 2}) == 2.5);
}

}  // namespace
}  // namespace fb
