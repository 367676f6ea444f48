// `--placer-seed` and `--compression` of `flowbench train` and `flowbench sim`: the flags the
// placement sweep (experiments/sweeps/lenet_placement.yaml) passes to both commands.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/apps/cli.h"

namespace fb {
namespace {

using test::Cli;
using test::ExpectRejected;

TEST_CASE("flowbench train and sim refuse bad --placer-seed and --compression values",
          "[apps][flags][placement]") {
  Cli cli;
  ExpectRejected(cli, "train --dataset synthetic --placer-seed -1", "--placer-seed", "'-1'");
  ExpectRejected(cli, "train --dataset synthetic --placer-seed 1.5", "--placer-seed", "'1.5'");
  ExpectRejected(cli, "train --dataset synthetic --compression maybe", "--compression", "maybe");
  ExpectRejected(cli, "sim --model lenet --platform two_hosts.xml --placer-seed -2",
                 "--placer-seed", "'-2'");
  ExpectRejected(cli, "sim --model lenet --platform two_hosts.xml --placer-seed x",
                 "--placer-seed", "'x'");
  ExpectRejected(cli, "sim --model lenet --platform two_hosts.xml --compression maybe",
                 "--compression", "maybe");
}

TEST_CASE("flowbench train records --placer-seed and runs --compression on as the pass",
          "[apps][flags][placement]") {
  Cli cli;
  const std::string json = cli.dir + "/m.json";
  const int rc = cli.Run("train --model mlp --hidden 8 --dataset synthetic --batch-size 4 "
                         "--steps 2 --devices cpu:2 --placer random --placer-seed 3 "
                         "--compression on --metrics-json " + json);
  INFO(cli.Stderr());
  REQUIRE(rc == 0);
  const nlohmann::json m = nlohmann::json::parse(cli.Read("m.json"));
  CHECK(m["placer"] == "random");
  CHECK(m["placer_seed"] == 3);
  CHECK(m["passes"] == nlohmann::json::array({"compression"}));
}

}  // namespace
}  // namespace fb
