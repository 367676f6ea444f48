// `flowbench sim` with the issue-17 features from the command line: --mode allreduce --ranks N,
// out-of-memory as a failed run (exit status 1 and a ResourceExhausted message, not a crash),
// --loop-iterations, and bad values naming the flag or the file.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>

#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

struct CommandResult {
  int code = -1;  // exit status; -1 when killed by a signal (an abort or a crash)
  std::string out, err;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

CommandResult Sim(const std::string& args, const test::TempDir& dir) {
  const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench sim " + args + " > " +
                          dir.file("out.txt") + " 2> " + dir.file("err.txt");
  const int status = std::system(cmd.c_str());
  CommandResult r;
  if (WIFEXITED(status)) r.code = WEXITSTATUS(status);
  r.out = Slurp(dir.file("out.txt"));
  r.err = Slurp(dir.file("err.txt"));
  return r;
}

TEST_CASE("flowbench sim runs allreduce data parallelism on N ranks", "[sim][allreduce][cli]") {
  test::TempDir dir;
  CommandResult r = Sim("--model lenet --batch 8 --platform star_4 --mode allreduce --ranks 4 "
                        "--steps 2 --metrics-json " + dir.file("m.json"), dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("allreduce algorithm: binomial"));  // libnbc, in place
  const std::string metrics = Slurp(dir.file("m.json"));
  CHECK_THAT(metrics, Catch::Contains("\"mode\": \"allreduce\""));
  CHECK_THAT(metrics, Catch::Contains("\"peak_memory_bytes\""));
  r = Sim("--model lenet --platform star_4 --mode allreduce --ranks 2 --ps 1", dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("--ps must be 0"));
  r = Sim("--model lenet --platform star_4 --mode allreduce --ranks 2 --allreduce-algorithm x", dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("--allreduce-algorithm must be"));
  r = Sim("--model lenet --platform star_4 --mode allreduce --ranks 2 --mpi-eager-limit -1", dir);
  CHECK(r.code != 0);
  CHECK_THAT(r.err, Catch::Contains("--mpi-eager-limit"));
  r = Sim("--model lenet --platform star_4 --mode allreduce --ranks 2 --mpi-eager-limit 0", dir);
  CHECK(r.code == 0);
  r = Sim("--model lenet --platform star_4 --mode allreduce --ranks 2 --mpi-eager-limit 64k", dir);
  CHECK(r.code != 0);
  CHECK_THAT(r.err, Catch::Contains("--mpi-eager-limit") && Catch::Contains("'64k'"));
  r = Sim("--model lenet --platform star_4 --mode allreduce --ranks 2 --mpi-eager-limit platform",
          dir);
  CHECK(r.code == 0);
}

TEST_CASE("flowbench sim reports out of memory as a failed run naming the device", "[sim][memory][cli]") {
  test::TempDir dir;
  std::ofstream(dir.file("small.xml")) << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="tiny" speed="1Gf"><prop id="memory_bytes" value="2000000"/></host>
  </zone>
</platform>
)";
  CommandResult r = Sim("--model lenet --batch 64 --platform " + dir.file("small.xml"), dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("ResourceExhausted: OOM on device"));
  CHECK_THAT(r.err, Catch::Contains("host tiny"));
  CHECK_THAT(r.err, Catch::Contains("capacity 2000000"));
  // The variables (about 0.74 MB with the Adam slots) fit: the placer accepts the placement and
  // the activations of batch 64 (peak 4.55 MB) do not; at batch 8 (1.42 MB) the run fits.
  r = Sim("--model lenet --batch 8 --platform " + dir.file("small.xml"), dir);
  CHECK(r.code == 0);
}

TEST_CASE("flowbench sim replays a while loop for --loop-iterations and refuses bad counts", "[sim][loop][cli]") {
  test::TempDir dir;
  CommandResult r = Sim("--model lstm_lm_word --batch 2 --platform this_machine.xml "
                        "--loop-iterations 4", dir);
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("predicted median step time"));
  r = Sim("--model lstm_lm_word --batch 2 --platform this_machine.xml --loop-iterations -3", dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("--loop-iterations must be an integer >= 0, got '-3'"));
  r = Sim("--model lstm_lm_word --batch 2 --platform this_machine.xml", dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("--loop-iterations"));
  CHECK_THAT(r.err, Catch::Contains("NextIteration"));
}

}  // namespace
}  // namespace fb
