// `flowbench sweep` end to end, with the built flowbench binary running `place` and `sim` points:
// a failing point and a timed-out point are recorded and the sweep finishes; --resume after a
// killed sweep runs only the missing points; --dry-run; export to CSV.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "sweep/sweep_results.h"
#include "tests/engine/trace/temp_dir.h"

extern char** environ;

namespace fb {
namespace {

namespace fs = std::filesystem;

struct SweepDir {
  test::TempDir temp;
  std::string dir = temp.path();
  explicit SweepDir(const std::string& spec) { std::ofstream(dir + "/s.yaml") << spec; }
  std::string Out() const { return dir + "/out"; }
  // Runs `flowbench sweep s.yaml --out out ARGS`; returns the exit status.
  int Run(const std::string& args) const {
    const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench sweep " + dir +
                            "/s.yaml --out " + Out() + " " + args + " > " + dir +
                            "/stdout.txt 2> " + dir + "/stderr.txt";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }
  std::string Read(const std::string& name) const {
    std::ifstream in(dir + "/" + name);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  sweep::ResultsTable Results() const {
    StatusOr<sweep::ResultsTable> t = sweep::ReadResultsTable(Out() + "/results.h5");
    INFO(t.status().ToString());
    REQUIRE(t.ok());
    return *t;
  }
};

size_t Lines(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// Starts `flowbench sweep s.yaml --out out` in the background (stdout to /dev/null, stderr to
// stderr.txt) and returns its pid, for tests that kill or interrupt it.
pid_t StartSweep(const SweepDir& d) {
  const std::string bin = std::string(FB_BINARY_DIR) + "/flowbench";
  std::vector<std::string> args = {bin, "sweep", d.dir + "/s.yaml", "--out", d.Out()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, (d.dir + "/stderr.txt").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, bin.c_str(), &actions, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Waits (at most a minute) until `path` has at least `n` lines.
void WaitForLines(const std::string& path, size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Lines(path) < n && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

TEST_CASE("flowbench sweep records a failing point and finishes the sweep", "[apps][sweep]") {
  // Batch size 0 is refused by `place` (exit 105); the other two points succeed.
  SweepDir d(
      "sim_command: place\nfixed: {model: mlp, placers: greedy}\n"
      "axes:\n  batch-size: [8, 0, 16]\n");
  REQUIRE(d.Run("-j 2") == 0);
  INFO(d.Read("stderr.txt"));
  CHECK_THAT(d.Read("stdout.txt"), Catch::Contains("3 runs, 1 failed"));
  CHECK_THAT(d.Read("stdout.txt"),
             Catch::Contains("failed: point 1 rep 0 sim (exit 105): --batch-size"));
  sweep::ResultsTable t = d.Results();
  REQUIRE(t.rows() == 3);
  const sweep::ResultsColumn* batch = t.Find("batch-size");
  const sweep::ResultsColumn* exit_status = t.Find("exit_status");
  const sweep::ResultsColumn* step = t.Find("predicted_step_ns");
  REQUIRE((batch && exit_status && step));
  CHECK(batch->numbers == std::vector<double>{8, 0, 16});
  CHECK(exit_status->numbers == std::vector<double>{0, 105, 0});
  CHECK(step->numbers[0] > 0);
  CHECK(std::isnan(step->numbers[1]));
  CHECK(step->numbers[2] > step->numbers[0]);  // twice the batch, more work per step
  CHECK_THAT(t.Find("error")->strings[1], Catch::Contains("--batch-size"));
  CHECK(t.Find("status")->strings[1] == "exit 105");
  CHECK_FALSE(t.Find("commit")->strings[0].empty());
  CHECK_FALSE(t.Find("start_time")->strings[0].empty());
  CHECK(t.Find("wall_s")->numbers[0] > 0);
  // Export to CSV.
  const std::string csv = d.dir + "/r.csv";
  const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench sweep export " + d.Out() +
                          "/results.h5 --csv " + csv + " > /dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(csv);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK_THAT(text, Catch::StartsWith("point,repetition,mode,command,"));
  size_t rows = 0;
  for (size_t at = text.find(",sim,place,"); at != std::string::npos;
       at = text.find(",sim,place,", at + 1))
    ++rows;
  CHECK(rows == 3);
}

// It exited 0 ("sweep s: 2 runs, 2 failed"), as if something had been measured.
TEST_CASE("flowbench sweep whose every run failed exits 1 after writing the table",
          "[apps][sweep][errors]") {
  SweepDir d("sim_command: place\nfixed: {model: nosuch}\naxes:\n  seed: [1, 2]\n");
  CHECK(d.Run("") == 1);
  CHECK_THAT(d.Read("stderr.txt"),
             Catch::Contains("every run of sweep 's' failed (2 of 2): nothing was measured"));
  CHECK(d.Results().rows() == 2);
}

TEST_CASE("flowbench sweep kills a point past its timeout and records it", "[apps][sweep]") {
  SweepDir d("timeout_s: 0.3\nfixed: {model: lenet, platform: star_4.xml, steps: 1000000}\n");
  REQUIRE(d.Run("") == 1);  // its only run failed
  sweep::ResultsTable t = d.Results();
  REQUIRE(t.rows() == 1);
  CHECK_THAT(t.Find("status")->strings[0], Catch::StartsWith("timeout after"));
  CHECK(t.Find("signal")->numbers[0] == SIGKILL);
  CHECK(t.Find("exit_status")->numbers[0] == -1);
}

TEST_CASE("flowbench sweep --resume after a killed sweep runs only the missing points",
          "[apps][sweep]") {
  SweepDir d(
      "sim_command: place\nfixed: {model: mlp, placers: random}\naxes:\n  seed: {from: 1, to: "
      "12}\n");
  const pid_t pid = StartSweep(d);
  const std::string journal = d.Out() + "/journal.rank0.jsonl";
  WaitForLines(journal, 2);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const size_t done = Lines(journal);
  REQUIRE(done >= 2);
  REQUIRE(done < 12);  // killed mid-sweep
  // Without --resume the directory is refused.
  CHECK(d.Run("") != 0);
  CHECK_THAT(d.Read("stderr.txt"), Catch::Contains("--resume") && Catch::Contains("out"));
  REQUIRE(d.Run("--resume -j 2") == 0);
  CHECK_THAT(d.Read("stdout.txt"), Catch::Contains(std::to_string(12 - done) + " runs, 0 failed, " +
                                                   std::to_string(done) + " skipped"));
  CHECK(Lines(journal) == 12);  // no point ran twice
  sweep::ResultsTable t = d.Results();
  REQUIRE(t.rows() == 12);
  std::map<double, int> seen;
  for (double s : t.Find("seed")->numbers) ++seen[s];
  CHECK(seen.size() == 12);
  // Nothing left: a second resume runs nothing.
  REQUIRE(d.Run("--resume") == 0);
  CHECK_THAT(d.Read("stdout.txt"), Catch::Contains("0 runs, 0 failed, 12 skipped"));
}

TEST_CASE("flowbench sweep --resume refuses the directory of another sweep", "[apps][sweep]") {
  // It appended its runs to the other sweep's journal and rewrote that table under its own name.
  SweepDir d("name: first\nsim_command: place\nfixed: {model: mlp, placers: single}\naxes:\n"
             "  seed: [1, 2]\n");
  REQUIRE(d.Run("") == 0);
  std::ofstream(d.dir + "/s.yaml") << "name: second\nsim_command: place\nfixed: {model: mlp}\n"
                                      "axes:\n  placers: [greedy]\n";
  CHECK(d.Run("--resume") == 1);
  CHECK_THAT(d.Read("stderr.txt"),
             Catch::Contains("--resume: sweep output directory '" + d.Out() +
                             "' holds sweep 'first' (" + d.dir + "/s.yaml), not 'second'"));
  sweep::ResultsTable t = d.Results();
  CHECK(t.name == "first");
  CHECK(t.rows() == 2);
  CHECK(Lines(d.Out() + "/journal.rank0.jsonl") == 2);
}

TEST_CASE("flowbench sweep spreads runs over mpirun ranks and rank 0 writes the table",
          "[apps][sweep]") {
  // Two ranks of one launch, as mpirun would start them (same PMIX_NAMESPACE, rank and size in
  // OMPI_COMM_WORLD_*): rank R runs the runs i with i % 2 == R.
  SweepDir d(
      "sim_command: place\nfixed: {model: mlp, placers: single}\naxes:\n  seed: [1, 2, 3, 4, 5]\n");
  const std::string sweep =
      std::string(FB_BINARY_DIR) + "/flowbench sweep " + d.dir + "/s.yaml --out " + d.Out();
  const std::string env =
      "PMIX_NAMESPACE=sweep-test-" + std::to_string(getpid()) + " OMPI_COMM_WORLD_SIZE=2 ";
  const std::string cmd = "(" + env + "OMPI_COMM_WORLD_RANK=1 " + sweep + " > " + d.dir +
                          "/r1.txt 2>&1 & " + env + "OMPI_COMM_WORLD_RANK=0 " + sweep + " > " +
                          d.dir + "/r0.txt 2>&1; wait)";
  REQUIRE(std::system(cmd.c_str()) == 0);
  INFO(d.Read("r0.txt") << d.Read("r1.txt"));
  CHECK(Lines(d.Out() + "/journal.rank0.jsonl") == 3);  // runs 0, 2, 4
  CHECK(Lines(d.Out() + "/journal.rank1.jsonl") == 2);  // runs 1, 3
  sweep::ResultsTable t = d.Results();
  REQUIRE(t.rows() == 5);
  CHECK(t.Find("seed")->numbers == std::vector<double>{1, 2, 3, 4, 5});
}

TEST_CASE("flowbench sweep --validate runs simulated points for real and compares",
          "[apps][sweep]") {
  SweepDir d(
      "sim_command: place\nreal_command: train\n"
      "fixed: {model: mlp, batch-size: 16, sim.placers: single, real.dataset: synthetic, "
      "real.steps: 3}\n"
      "axes:\n  hidden: [8, 16, 32]\n");
  REQUIRE(d.Run("--validate 2") == 0);
  INFO(d.Read("stderr.txt"));
  CHECK_THAT(d.Read("stdout.txt"),
             Catch::Contains("5 runs, 0 failed") && Catch::Contains("validation: 2 points"));
  sweep::ResultsTable t = d.Results();
  REQUIRE(t.rows() == 5);
  // Points 0 and 2 (the first and the last) ran for real too.
  CHECK(t.Find("mode")->strings == std::vector<std::string>{"sim", "real", "sim", "sim", "real"});
  std::ifstream in(d.Out() + "/validation.json");
  const nlohmann::json v = nlohmann::json::parse(in);
  CHECK(v["pairs"] == 2);
  CHECK(v["sim_metric"] == "predicted_step_ns");
  CHECK(v["real_metric"] == "ms_per_step_median");
  CHECK(v["points"][1]["point"] == 2);
  CHECK(v["points"][0]["measured_s"].get<double>() > 0);
}

TEST_CASE("flowbench sweep on SIGINT stops its runs and keeps what finished", "[apps][sweep]") {
  SweepDir d(
      "fixed: {model: lenet, platform: star_4.xml}\naxes:\n  steps: [1, 1000000, 1000000]\n");
  const pid_t pid = StartSweep(d);
  // The one-step point finishes, then the second (a million steps) runs until interrupted.
  WaitForLines(d.Out() + "/journal.rank0.jsonl", 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto sent = std::chrono::steady_clock::now();
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(std::chrono::steady_clock::now() - sent < std::chrono::seconds(10));
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 1));
  CHECK_THAT(d.Read("stderr.txt"), Catch::Contains("interrupted"));
  sweep::ResultsTable t = d.Results();
  REQUIRE(t.rows() == 1);
  CHECK(t.Find("steps")->numbers[0] == 1);
  CHECK(t.Find("status")->strings[0] == "ok");
}

TEST_CASE("flowbench sweep --dry-run prints the runs and writes nothing", "[apps][sweep]") {
  SweepDir d(
      "mode: both\nrepetitions: 2\nfixed: {model: mlp}\naxes:\n  placer: [single, greedy]\n"
      "zip:\n  - {real.devices: [cpu:1, cpu:2], sim.platform: [star_4.xml, two_hosts.xml]}\n");
  REQUIRE(d.Run("--dry-run") == 0);
  const std::string out = d.Read("stdout.txt");
  CHECK_THAT(out, Catch::Contains("16 runs"));
  CHECK_THAT(out, Catch::Contains("point 3 rep 1 real"));
  CHECK_THAT(out, Catch::Contains("flowbench train --model mlp --placer greedy --devices cpu:2"));
  CHECK_THAT(out,
             Catch::Contains("flowbench sim --model mlp --placer greedy --platform two_hosts.xml"));
  CHECK_FALSE(fs::exists(d.Out()));
}

TEST_CASE("flowbench sweep reports a bad spec with file, line and key", "[apps][sweep][errors]") {
  SweepDir d("fixed: {model: mlp}\naxes:\n  placerz: [greedy]\n");
  CHECK(d.Run("") != 0);
  CHECK_THAT(d.Read("stderr.txt"), Catch::Contains("s.yaml:3") && Catch::Contains("axes.placerz") &&
                                       Catch::Contains("unknown flag --placerz"));
}

}  // namespace
}  // namespace fb
