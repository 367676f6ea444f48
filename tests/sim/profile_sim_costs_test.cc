// ParseProfileSpec: --cost-model profile:FILE[,threads=N][,step-costs=on|off] as users mistype it.
#include "sim/profile_sim_costs.h"

#include <fstream>

#include <catch2/catch.hpp>

#include "tests/engine/trace/temp_dir.h"

namespace fb::sim {
namespace {

TEST_CASE("ParseProfileSpec refuses misspelt and repeated options naming them",
          "[sim][profile][errors]") {
  // ",bogus=1" read as part of the file name: "out/p.h5,bogus=1: cannot open profile".
  auto unknown = ParseProfileSpec("profile:p.h5,threds=2");
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.status().message(),
             Catch::Contains("'profile:p.h5,threds=2': unknown option 'threds=2' (profile:FILE "
                             "takes threads=N and step-costs=on|off)"));
  // The first of two thread counts won without a word.
  CHECK_THAT(ParseProfileSpec("profile:p.h5,threads=2,threads=1").status().message(),
             Catch::Contains("threads is given twice"));
  CHECK_THAT(ParseProfileSpec("profile:p.h5,step-costs=off,step-costs=on").status().message(),
             Catch::Contains("step-costs is given twice"));

  auto ok = ParseProfileSpec("profile:p.h5,step-costs=off,threads=2");
  REQUIRE(ok.ok());
  CHECK(ok->path == "p.h5");
  CHECK(ok->threads == 2);
  CHECK_FALSE(ok->step_costs);

  // A file whose name holds ",a=b" is still read as a file.
  test::TempDir dir;
  const std::string odd = dir.file("p.h5,run=3");
  std::ofstream(odd) << "x";
  auto file = ParseProfileSpec("profile:" + odd + ",threads=1");
  REQUIRE(file.ok());
  CHECK(file->path == odd);
}

}  // namespace
}  // namespace fb::sim
