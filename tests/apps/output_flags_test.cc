// Files a command writes and names it is given are checked before any work starts (a user's
// first runs, from a clean directory): an output path that is a directory, or below a file, is
// refused at parse time naming the flag; missing directories above an output are created; an
// unknown profile model stops `flowbench profile` before it measures the executor.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "tests/apps/cli.h"

namespace fb {
namespace {

namespace fs = std::filesystem;

using test::Cli;
using test::ExpectRejected;

const std::string kPlatform = std::string(FB_SOURCE_DIR) + "/sim/platforms/star_4.xml";

TEST_CASE("flowbench refuses an output file that is a directory before any work",
          "[apps][flags][errors]") {
  Cli cli;
  const std::string d = cli.dir + "/adir";
  fs::create_directories(d);
  std::ofstream(cli.dir + "/afile") << "x";
  // Before: profile measured for seconds to minutes, then "Internal: cannot create profile file".
  ExpectRejected(cli, "profile --models mlp --batch-sizes 1 --threads 1 --out " + d, "--out",
                 "got the directory '" + d + "'");
  CHECK(cli.Run("profile --out " + d) == 105);
  CHECK(cli.seconds < 5);
  ExpectRejected(cli, "train --steps 1 --metrics-json " + d, "--metrics-json", d);
  ExpectRejected(cli, "sim --model mlp --platform " + kPlatform + " --trace " + d, "--trace", d);
  ExpectRejected(cli, "sim-platform fat-tree:2:ib " + d, "out", d);
  ExpectRejected(cli, "place --model mlp --json " + cli.dir + "/afile/p.json", "--json",
                 "'" + cli.dir + "/afile' is not a directory");
}

TEST_CASE("flowbench profile refuses an unknown model before measuring", "[apps][flags][errors]") {
  Cli cli;
  ExpectRejected(cli, "profile --models mlp,nosuch --out " + cli.dir + "/p.h5", "--models",
                 "unknown model 'nosuch'");
  CHECK(cli.Stdout().empty());  // nothing was measured
  CHECK_FALSE(fs::exists(cli.dir + "/p.h5"));
}

TEST_CASE("flowbench sim and place create the directories above their outputs",
          "[apps][flags]") {
  // `flowbench sim ... --metrics-json out/sim.json` from a clean directory failed with
  // "cannot write metrics file", `place --json out/place.json` with "cannot write".
  Cli cli;
  const std::string args = "sim --model mlp --batch-size 1 --platform " + kPlatform +
                           " --metrics-json " + cli.dir + "/a/b/m.json --trace " + cli.dir +
                           "/c/t.h5";
  INFO(args);
  REQUIRE(cli.Run(args) == 0);
  CHECK(fs::exists(cli.dir + "/a/b/m.json"));
  CHECK(fs::exists(cli.dir + "/c/t.h5"));
  REQUIRE(cli.Run("place --model mlp --batch-size 1 --devices cpu:2 --json " + cli.dir +
                  "/d/p.json --metrics-json " + cli.dir + "/e/m.json") == 0);
  CHECK(fs::exists(cli.dir + "/d/p.json"));
  CHECK(fs::exists(cli.dir + "/e/m.json"));
}

TEST_CASE("flowbench sim and place name a graph file that is a directory", "[apps][errors]") {
  // Both aborted: "terminate called after throwing an instance of 'std::__ios_failure'".
  Cli cli;
  for (const std::string& cmd :
       {"sim --platform " + kPlatform + " --graph ", std::string("place --graph ")}) {
    INFO(cmd);
    CHECK(cli.Run(cmd + cli.dir) == 1);
    CHECK_THAT(cli.Stderr(), Catch::Contains("graph file '" + cli.dir + "' is a directory"));
  }
}

}  // namespace
}  // namespace fb
