// Runs analysis/op_time_table.py (Debian's /usr/bin/python3 with h5py and pandas) on a trace
// written by TraceWriter: per-op node time of one step, and the slowest nodes of one op. Without
// that Python the tests print "skipped" and pass.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <catch2/catch.hpp>

#include "engine/trace/trace_writer.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

bool HavePython() {
  static const bool ok =
      std::filesystem::exists("/usr/bin/python3") &&
      std::system("/usr/bin/python3 -c 'import h5py, pandas' >/dev/null 2>&1") == 0;
  if (!ok) std::cout << "skipped: /usr/bin/python3 with h5py and pandas not found\n";
  return ok;
}

int RunTable(const std::string& args, const test::TempDir& dir, std::string* output) {
  const std::string log = dir.file("op_time_table.log");
  const std::string cmd = std::string("/usr/bin/python3 ") + FB_SOURCE_DIR +
                          "/analysis/op_time_table.py " + args + " >" + log + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  *output = ss.str();
  return rc;
}

// Two steps on GPU:0: conv (Conv2D) 3000 ns, two MaxPoolGrad nodes of 1000 and 2000 ns; step 1
// doubles every node.
std::string WriteTrace(const test::TempDir& dir) {
  const std::string path = dir.file("step.h5");
  auto w = TraceWriter::Create(path, TraceMetadata{});
  REQUIRE(w.ok());
  const char* gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
  int64_t t = 0;
  for (int step = 0; step < 2; ++step) {
    const int64_t k = step + 1;
    std::vector<NodeExecStats> stats = {
        {"conv", "Conv2D", gpu, 1, t, t + 3000 * k, 64, 0},
        {"pool1_grad", "MaxPoolGrad", gpu, 1, t + 3000 * k, t + 4000 * k, 64, 0},
        {"pool3_grad", "MaxPoolGrad", gpu, 1, t + 4000 * k, t + 6000 * k, 64, 0}};
    REQUIRE((*w)->AddStep(step, stats, StepTotals{}).ok());
    t += 6000 * k;
  }
  REQUIRE((*w)->Close().ok());
  return path;
}

TEST_CASE("op_time_table.py sums a step's node time per op and lists an op's slowest nodes",
          "[trace][python]") {
  if (!HavePython()) return;
  test::TempDir dir;
  const std::string trace = WriteTrace(dir);
  std::string out;
  REQUIRE(RunTable(trace + " --nodes MaxPoolGrad", dir, &out) == 0);
  INFO(out);
  CHECK_THAT(out, Catch::Contains("step 1: 0.0 ms of node time in 3 nodes"));
  CHECK_THAT(out, Catch::Contains("| Conv2D | 0.01 | 50.0% | 1 | 0.006 |"));
  CHECK_THAT(out, Catch::Contains("| MaxPoolGrad | 0.01 | 50.0% | 2 | 0.003 |"));
  CHECK(out.find("pool3_grad: 0.004 ms") < out.find("pool1_grad: 0.002 ms"));
  REQUIRE(RunTable(trace + " --step 0", dir, &out) == 0);
  CHECK_THAT(out, Catch::Contains("step 0: 0.0 ms of node time in 3 nodes"));
  CHECK(RunTable(trace + " --step 7", dir, &out) != 0);
  CHECK_THAT(out, Catch::Contains("no compute events in step 7"));
}

}  // namespace
}  // namespace fb
