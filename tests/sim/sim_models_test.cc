// `flowbench sim --model NAME` builds the same graphs as `flowbench train` (experiments/models/models.h).
#include <catch2/catch.hpp>

#include "sim/sim_costs.h"

namespace fb::sim {
namespace {

TEST_CASE("Simulated models come from the training model registry", "[sim]") {
  auto g = LoadSimGraph("", "lenet", 8);
  INFO(g.status().ToString());
  REQUIRE(g.ok());
  int convs = 0;
  for (Node* n : g->graph->nodes()) convs += n->op() == "Conv2D";
  CHECK(convs == 2);
  bool found_images = false;
  for (const auto& [name, shape] : g->feed_shapes) {
    if (shape.rank() == 4) {
      found_images = true;
      CHECK(shape == TensorShape({8, 28, 28, 1}));
    }
  }
  CHECK(found_images);

  auto unknown = LoadSimGraph("", "resnet-9000", 8);
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.status().message(), Catch::Contains("resnet-9000"));
}

}  // namespace
}  // namespace fb::sim
