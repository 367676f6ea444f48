// analysis/plot_sweep.py draws each of its figures from a results table written by the sweep
// library (Debian /usr/bin/python3 with h5py, pandas and matplotlib; the test says so and
// passes when they are missing).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "sweep/sweep_results.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb::sweep {
namespace {

bool HavePlotting() {
  return std::system("/usr/bin/python3 -c 'import h5py, pandas, matplotlib' > /dev/null 2>&1") == 0;
}

// Two placers x three batch sizes x two repetitions simulated; points 0 and 5 also real.
std::vector<SweepRow> Rows() {
  std::vector<SweepRow> rows;
  for (int64_t point = 0; point < 6; ++point) {
    const std::string placer = point < 3 ? "single" : "greedy";
    const int batch = 16 << (point % 3);
    for (const std::string mode : {"sim", "real"}) {
      if (mode == "real" && point != 0 && point != 5) continue;
      for (int64_t rep = 0; rep < 2; ++rep) {
        SweepRow r;
        r.point = point;
        r.repetition = rep;
        r.mode = mode;
        r.command = mode == "sim" ? "sim" : "train";
        r.hash = std::to_string(point) + mode;
        r.settings = {{"placer", placer}, {"batch-size", std::to_string(batch)}};
        r.exit_status = 0;
        r.status = "ok";
        const double step_s = 0.001 * batch * (placer == "greedy" ? 0.8 : 1.0) * (1 + 0.01 * rep);
        if (mode == "sim") {
          r.metrics = {{"median_step_time_s", step_s}, {"wire_bytes", 1000.0 * (6 - point)}};
        } else {
          r.metrics = {{"ms_per_step_median", 1.2e3 * step_s}};
        }
        rows.push_back(r);
      }
    }
  }
  return rows;
}

TEST_CASE("plot_sweep.py draws lines, heat maps, Pareto fronts and predicted vs measured",
          "[sweep][plot]") {
  if (!HavePlotting()) {
    WARN("no /usr/bin/python3 with h5py, pandas and matplotlib: plot_sweep.py not run");
    return;
  }
  test::TempDir dir;
  const std::string results = dir.file("results.h5");
  REQUIRE(WriteResultsTable(BuildResultsTable(Rows(), "t", "t.yaml", "", "c"), results).ok());
  const std::string script = std::string(FB_SOURCE_DIR) + "/analysis/plot_sweep.py";
  const std::vector<std::pair<std::string, std::string>> figures = {
      {"lines.png", "--x batch-size --y median_step_time_s --hue placer --facet placer"},
      {"heat.png", "--x batch-size --y placer --z median_step_time_s"},
      {"pareto.png", "--pareto median_step_time_s wire_bytes --hue placer"},
      {"pvm.png", "--predicted-vs-measured"}};
  for (const auto& [png, args] : figures) {
    const std::string cmd = "/usr/bin/python3 " + script + " " + results + " " + args + " --out " +
                            dir.file(png) + " > " + dir.file("log.txt") + " 2>&1";
    INFO(cmd);
    CHECK(std::system(cmd.c_str()) == 0);
    CHECK(std::filesystem::file_size(dir.file(png)) > 1000);
  }
  // A metric that is not a column is named in the error.
  const std::string bad = "/usr/bin/python3 " + script + " " + results +
                          " --x placer --y nope > /dev/null 2> " + dir.file("err.txt");
  CHECK(std::system(bad.c_str()) != 0);
}

}  // namespace
}  // namespace fb::sweep
