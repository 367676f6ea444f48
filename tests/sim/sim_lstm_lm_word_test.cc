// `flowbench sim --model lstm_lm_word...` (experiments/models/lstm_lm_word.h): the unrolled
// variant simulates; the WhileLoop variant simulates for a given iteration count
// (sim/loop_replay.h) and, without one, fails with a message naming the loop and the flag
// (instead of stalling on iteration 2).
#include <catch2/catch.hpp>

#include "sim/sim_costs.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

StatusOr<SimResult> SimulateModel(const std::string& model, int64_t loop_iterations = -1,
                                  const std::string& platform = "two_hosts.xml") {
  return test::RunSimInChild([&]() -> StatusOr<SimResult> {
    ASSIGN_OR_RETURN(SimGraph graph, LoadSimGraph("", model, 2));
    ASSIGN_OR_RETURN(CostModelHandle costs,
                     MakeSimCosts(*graph.graph, graph.feed_shapes, "analytic"));
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(test::PlatformPath(platform)));
    SimRunOptions options;
    options.loops.iterations = loop_iterations;
    return sim.Run(*graph.graph, costs.costs, options);
  });
}

TEST_CASE("The word LSTM simulates unrolled or with --loop-iterations and names the loop otherwise", "[sim][lstm_lm_word]") {
  auto unrolled = SimulateModel("lstm_lm_word_unrolled");
  INFO(unrolled.status().ToString());
  REQUIRE(unrolled.ok());
  REQUIRE(unrolled->step_times_s.size() == 1);
  CHECK(unrolled->step_times_s[0] > 0);

  // One device (this_machine.xml): a loop is replayed on one device.
  auto looped = SimulateModel("lstm_lm_word", -1, "this_machine.xml");
  REQUIRE_FALSE(looped.ok());
  CHECK_THAT(looped.status().message(), Catch::Contains("while loop frame"));
  CHECK_THAT(looped.status().message(), Catch::Contains("NextIteration"));
  CHECK_THAT(looped.status().message(), Catch::Contains("--loop-iterations"));
  CHECK_THAT(looped.status().message(), Catch::Contains("lstm_lm_word_unrolled"));

  // Replayed for its sequence length, the loop costs about what the unrolled graph does.
  auto counted = SimulateModel("lstm_lm_word", 20, "this_machine.xml");
  INFO(counted.status().ToString());
  REQUIRE(counted.ok());
  REQUIRE(counted->step_times_s.size() == 1);
  CHECK(counted->step_times_s[0] > 0);
}

}  // namespace
}  // namespace fb::sim
