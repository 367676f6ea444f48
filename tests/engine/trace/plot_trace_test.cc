// Runs analysis/plot_trace.py and analysis/trace_to_csv.py (Debian's /usr/bin/python3 with h5py,
// pandas, matplotlib) on a trace written by TraceWriter. Without that Python the tests print
// "skipped" and pass.
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

const char* kPython = "/usr/bin/python3";

bool HavePython() {
  static const bool ok =
      std::filesystem::exists(kPython) &&
      std::system("/usr/bin/python3 -c 'import h5py, pandas, matplotlib' >/dev/null 2>&1") == 0;
  if (!ok) std::cout << "skipped: /usr/bin/python3 with h5py, pandas, matplotlib not found\n";
  return ok;
}

// Runs `args` with /usr/bin/python3 on a script of analysis/; returns its exit code and output.
int RunScript(const std::string& script, const std::string& args, const test::TempDir& dir,
              std::string* output) {
  std::string log = dir.file(script + ".log");
  std::string cmd = std::string(kPython) + " " + FB_SOURCE_DIR + "/analysis/" + script + " " +
                    args + " >" + log + " 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  *output = ss.str();
  return rc;
}

// Three steps of two devices (CPU:0 with two threads, GPU:0 stream 1), a loss and an accuracy
// curve; step 1 takes longest, step 2 shortest, so step 0 is the median step.
std::string WriteTrainingTrace(const test::TempDir& dir) {
  std::string path = dir.file("train.h5");
  auto w = TraceWriter::Create(path, TraceMetadata{});
  REQUIRE(w.ok());
  const char* cpu = "/job:localhost/replica:0/task:0/device:CPU:0";
  const char* gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
  const int64_t lengths[] = {2000, 3000, 1000};
  int64_t t = 0;
  for (int step = 0; step < 3; ++step) {
    int64_t len = lengths[step];
    std::vector<NodeExecStats> stats = {
        {"x", "Const", cpu, 11, t, t + len / 4, 64, 0},
        {"send", "_Send", cpu, 12, t + len / 4, t + len / 2, 0, 0, gpu, 64},
        {"recv", "_Recv", gpu, 1, t + len / 4, t + len / 2, 64, 0, cpu, 64},
        {"mm", "MatMul", gpu, 1, t + len / 2, t + len, 256, 0}};
    StepTotals totals;
    totals.loss = 3.0 - step;
    REQUIRE((*w)->AddStep(step, stats, totals).ok());
    REQUIRE((*w)->AddMetric(step, "loss", 3.0 - step).ok());
    REQUIRE((*w)->AddMetric(step, "accuracy", 0.5 + 0.1 * step).ok());
    t += len;
  }
  REQUIRE((*w)->Close().ok());
  return path;
}

TEST_CASE("plot_trace.py draws the metrics and the median step's timeline", "[trace][python]") {
  if (!HavePython()) return;
  test::TempDir dir;
  std::string trace = WriteTrainingTrace(dir);
  std::string out;
  int rc = RunScript("plot_trace.py", trace + " --out-dir " + dir.file("png"), dir, &out);
  INFO(out);
  REQUIRE(rc == 0);
  for (const char* png : {"png/train_metrics.png", "png/train_timeline_step0.png"}) {
    INFO(png);
    REQUIRE(std::filesystem::exists(dir.file(png)));
    CHECK(std::filesystem::file_size(dir.file(png)) > 1000);
  }
  rc = RunScript("plot_trace.py", trace + " --step 1 --out-dir " + dir.file("png"), dir, &out);
  REQUIRE(rc == 0);
  CHECK(std::filesystem::file_size(dir.file("png/train_timeline_step1.png")) > 1000);

  rc = RunScript("plot_trace.py", trace + " --step 9", dir, &out);
  CHECK(rc != 0);
  CHECK_THAT(out, Catch::Contains("train.h5: step 9 has no events"));
}

TEST_CASE("trace_to_csv.py writes every table with names resolved", "[trace][python]") {
  if (!HavePython()) return;
  test::TempDir dir;
  std::string trace = WriteTrainingTrace(dir);
  std::string out;
  int rc = RunScript("trace_to_csv.py", trace + " " + dir.file("csv"), dir, &out);
  INFO(out);
  REQUIRE(rc == 0);
  std::ifstream events(dir.file("csv/events.csv"));
  std::string header, line;
  std::getline(events, header);
  CHECK_THAT(header, Catch::Contains("op_name"));
  CHECK_THAT(header, Catch::Contains("peer_name"));
  int rows = 0, sends = 0;
  while (std::getline(events, line)) {
    ++rows;
    sends += line.find(",send,") != std::string::npos;
  }
  CHECK(rows == 12);
  CHECK(sends == 3);
  for (const char* f : {"steps", "metrics", "memory", "devices", "ops", "edges", "attrs"})
    CHECK(std::filesystem::exists(dir.file(std::string("csv/") + f + ".csv")));
}

TEST_CASE("plot_trace.py rejects a file that is not a trace, naming it", "[trace][python]") {
  if (!HavePython()) return;
  test::TempDir dir;
  std::ofstream(dir.file("junk.h5")) << "junk";
  std::string out;
  int rc = RunScript("plot_trace.py", dir.file("junk.h5"), dir, &out);
  CHECK(rc != 0);
  CHECK_THAT(out, Catch::Contains("junk.h5: cannot open trace"));
}

}  // namespace
}  // namespace fb
