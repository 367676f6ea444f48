// CheckInputFile: the check readers of user-named files run before parsing them.
#include "engine/framework/input_file.h"

#include <fstream>

#include <catch2/catch.hpp>

#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

TEST_CASE("CheckInputFile accepts files and names directories and missing paths",
          "[framework][errors]") {
  test::TempDir dir;
  const std::string file = dir.file("spec.yaml");
  std::ofstream(file) << "axes: {}\n";
  CHECK(CheckInputFile(file, "sweep spec").ok());
  CHECK(CheckInputFile("/dev/null", "sweep spec").ok());

  Status d = CheckInputFile(dir.path(), "sweep spec");
  CHECK(d.code() == Code::kInvalidArgument);
  CHECK(d.message() == "sweep spec '" + dir.path() + "' is a directory, expected a file");

  Status m = CheckInputFile(dir.file("nope.yaml"), "sweep spec");
  CHECK(m.code() == Code::kNotFound);
  CHECK(m.message() == "sweep spec '" + dir.file("nope.yaml") + "' does not exist");
}

}  // namespace
}  // namespace fb
