// RunProcesses with /bin/sh children: exit statuses, signals, timeouts, stderr tails, the
// environment, the jobs limit and stopping.
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <map>

#include <catch2/catch.hpp>

#include "sweep/process_pool.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb::sweep {
namespace {

ProcessSpec Shell(const test::TempDir& dir, const std::string& name, const std::string& script,
                  double timeout_s = 30) {
  ProcessSpec p;
  p.argv = {"/bin/sh", "-c", script};
  p.stdout_path = dir.file(name + ".out");
  p.stderr_path = dir.file(name + ".err");
  p.timeout_s = timeout_s;
  return p;
}

std::map<size_t, ProcessResult> RunAll(const std::vector<ProcessSpec>& tasks, int jobs,
                                       size_t* most_running = nullptr) {
  std::map<size_t, ProcessResult> results;
  size_t most = 0;
  Status s = RunProcesses(
      tasks, jobs, [&](size_t i, const ProcessResult& r) { results[i] = r; },
      [&](size_t running) { most = std::max(most, running); }, nullptr);
  REQUIRE(s.ok());
  if (most_running) *most_running = most;
  return results;
}

TEST_CASE("RunProcesses records exit statuses, signals, timeouts and stderr tails",
          "[sweep][process]") {
  test::TempDir dir;
  std::vector<ProcessSpec> tasks = {
      Shell(dir, "ok", "echo out; exit 0"), Shell(dir, "fail", "echo 'bad flag --x' >&2; exit 3"),
      Shell(dir, "crash", "kill -SEGV $$"), Shell(dir, "hang", "sleep 30", /*timeout_s=*/0.2),
      Shell(dir, "long", "head -c 5000 /dev/zero | tr '\\0' a >&2; echo END >&2; exit 1")};
  tasks.push_back(ProcessSpec{{"/nonexistent/program"}, dir.file("x.out"), dir.file("x.err"), 5});
  std::map<size_t, ProcessResult> r = RunAll(tasks, 3);
  REQUIRE(r.size() == tasks.size());
  CHECK(r[0].ok());
  CHECK(r[0].Describe() == "ok");
  CHECK(r[1].exit_status == 3);
  CHECK(r[1].Describe() == "exit 3");
  CHECK(r[1].stderr_tail == "bad flag --x\n");
  CHECK(r[2].signal == SIGSEGV);
  CHECK_THAT(r[2].Describe(), Catch::StartsWith("signal 11"));
  CHECK(r[3].timed_out);
  CHECK(r[3].signal == SIGKILL);
  CHECK(r[3].wall_s < 10);
  CHECK_THAT(r[3].Describe(), Catch::StartsWith("timeout after"));
  CHECK(r[4].stderr_tail.size() == kStderrTailBytes);
  CHECK_THAT(r[4].stderr_tail, Catch::EndsWith("aaaEND\n"));
  CHECK(r[5].exit_status == 127);
  CHECK_THAT(r[5].stderr_tail, Catch::Contains("cannot execute"));
  std::ifstream out(dir.file("ok.out"));
  std::string line;
  CHECK((std::getline(out, line) && line == "out"));
  CHECK(r[0].start_time.size() == 20);  // 2026-11-26T00:20:01Z
}

TEST_CASE("RunProcesses runs at most jobs children at a time", "[sweep][process]") {
  test::TempDir dir;
  std::vector<ProcessSpec> tasks;
  for (int i = 0; i < 6; ++i) tasks.push_back(Shell(dir, "t" + std::to_string(i), "sleep 0.05"));
  size_t most = 0;
  CHECK(RunAll(tasks, 2, &most).size() == 6);
  CHECK(most == 2);
}

TEST_CASE("Children of a sweep rank do not inherit the MPI launcher's variables",
          "[sweep][process]") {
  test::TempDir dir;
  setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  setenv("PMIX_NAMESPACE", "job", 1);
  setenv("FB_SWEEP_TEST_KEEP", "kept", 1);
  ProcessSpec p =
      Shell(dir, "env", "echo \"$OMPI_COMM_WORLD_RANK|$PMIX_NAMESPACE|$FB_SWEEP_TEST_KEEP\"");
  p.env = EnvironmentWithoutMpiRank();
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("PMIX_NAMESPACE");
  REQUIRE(RunAll({p}, 1).at(0).ok());
  std::ifstream out(dir.file("env.out"));
  std::string line;
  REQUIRE(std::getline(out, line));
  CHECK(line == "||kept");
  unsetenv("FB_SWEEP_TEST_KEEP");
}

TEST_CASE("RunProcesses stops its children when asked", "[sweep][process]") {
  test::TempDir dir;
  std::vector<ProcessSpec> tasks;
  for (int i = 0; i < 4; ++i) tasks.push_back(Shell(dir, "s" + std::to_string(i), "sleep 30"));
  std::atomic<bool> stop{false};
  const auto start = std::chrono::steady_clock::now();
  size_t finished = 0;
  Status s = RunProcesses(
      tasks, 2, [&](size_t, const ProcessResult&) { ++finished; },
      [&](size_t running) {
        if (running == 2) stop = true;
      },
      &stop);
  CHECK(s.code() == Code::kCancelled);
  CHECK_THAT(s.message(), Catch::Contains("2 runs not started"));
  CHECK(finished == 0);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

}  // namespace
}  // namespace fb::sweep
