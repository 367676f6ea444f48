// `flowbench sim --model lstm_lm_word...` (experiments/models/lstm_lm_word.h): the unrolled
// variant simulates; the WhileLoop variant fails with a message saying that the simulator does
// not run loops (instead of stalling on iteration 2).
#include <catch2/catch.hpp>

#include "sim/sim_costs.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

StatusOr<SimResult> SimulateModel(const std::string& model) {
  return test::RunSimInChild([&]() -> StatusOr<SimResult> {
    ASSIGN_OR_RETURN(SimGraph graph, LoadSimGraph("", model, 2));
    ASSIGN_OR_RETURN(CostModelHandle costs,
                     MakeSimCosts(*graph.graph, graph.feed_shapes, "analytic"));
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(test::PlatformPath("two_hosts.xml")));
    return sim.Run(*graph.graph, costs.costs, SimRunOptions());
  });
}

TEST_CASE("The word LSTM simulates unrolled and names the loop otherwise", "[sim][lstm_lm_word]") {
  auto unrolled = SimulateModel("lstm_lm_word_unrolled");
  INFO(unrolled.status().ToString());
  REQUIRE(unrolled.ok());
  REQUIRE(unrolled->step_times_s.size() == 1);
  CHECK(unrolled->step_times_s[0] > 0);

  auto looped = SimulateModel("lstm_lm_word");
  REQUIRE_FALSE(looped.ok());
  CHECK_THAT(looped.status().message(), Catch::Contains("does not run while loops"));
  CHECK_THAT(looped.status().message(), Catch::Contains("NextIteration"));
  CHECK_THAT(looped.status().message(), Catch::Contains("lstm_lm_word_unrolled"));
}

}  // namespace
}  // namespace fb::sim
