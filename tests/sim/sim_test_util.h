#pragma once
// Helpers for simulator tests: graphs from JSON, hand-given costs by node name, platform paths,
// simulations in child processes.
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/simulator.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/test_util.h"

namespace fb::sim::test {

inline std::string PlatformPath(const std::string& name) {
  return std::string(FB_SOURCE_DIR) + "/sim/platforms/" + name;
}

inline std::unique_ptr<Graph> MakeGraph(const std::string& json) {
  auto g = Graph::FromGraphDef(fb::test::ParseGraph(json));
  INFO(g.status().ToString());
  REQUIRE(g.ok());
  return std::move(*g);
}

// The null step of OSDI 2016 section 6.2 as a graph JSON: w (`floats` floats, on the PS) to every
// worker, upd = w * 0.5 there, AssignAdd back on the PS; no compute cost of its own.
inline std::string NullStepGraphJson(int64_t floats) {
  return R"({"nodes": [
  {"name": "w", "op": "Variable", "device": "/job:ps/task:0", "attrs": {"shape": {"shape": [)" +
         std::to_string(floats) + R"(]}, "dtype": {"type": "float"}}},
  {"name": "half", "op": "Const", "device": "/job:worker", "attrs": {"value": {"tensor": {"dtype": "float", "shape": [], "values": [0.5]}}, "dtype": {"type": "float"}}},
  {"name": "upd", "op": "Mul", "device": "/job:worker", "inputs": ["w", "half"], "attrs": {"T": {"type": "float"}}},
  {"name": "apply", "op": "AssignAdd", "device": "/job:ps/task:0", "inputs": ["w", "upd"], "attrs": {"T": {"type": "float"}}}
]})";
}

// Costs from tables: seconds per node name (default 0) and output bytes per node name
// (default 0), the same on every device.
inline SimCosts TableCosts(std::map<std::string, double> seconds,
                           std::map<std::string, int64_t> bytes) {
  SimCosts c;
  c.compute_s = [seconds](const Node& n, const DeviceDesc&) {
    auto it = seconds.find(n.name());
    return it == seconds.end() ? 0.0 : it->second;
  };
  c.output_bytes = [bytes](const Node& n, int) -> int64_t {
    auto it = bytes.find(n.name());
    return it == bytes.end() ? 0 : it->second;
  };
  return c;
}

// Runs `run` in a child process and returns the text it returned. The test fails if the child
// dies (a SimGrid abort or crash). `run` must not use Catch assertions (they would fire in the
// child).
inline std::string TextFromChild(const std::function<std::string()>& run) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    const std::string out = run();
    for (size_t done = 0; done < out.size();) {
      const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) _exit(1);
      done += static_cast<size_t>(n);
    }
    _exit(0);  // no atexit handlers, no Catch reporting in the child
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  INFO("child exit status " << status << ", output: " << text);
  REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  return text;
}

// Runs `run` (which creates its own Simulation) in a child process and returns its step times,
// transfers and wire bytes (the other SimResult fields stay empty). SimGrid 3.32 supports one
// engine per process: a second one can crash in EngineImpl::presolve while loading its platform
// (seen under AddressSanitizer), so a test comparing several simulations runs each in a child.
// `run` must not use Catch assertions (they would fire in the child).
inline StatusOr<SimResult> RunSimInChild(const std::function<StatusOr<SimResult>()>& run) {
  const std::string text = TextFromChild([&] {
    StatusOr<SimResult> r = run();
    if (!r.ok()) return nlohmann::json{{"error", r.status().ToString()}}.dump();
    return nlohmann::json{{"step_times_s", r->step_times_s},
                          {"transfers", r->transfers},
                          {"wire_bytes", r->wire_bytes}}
        .dump();
  });
  const nlohmann::json j = nlohmann::json::parse(text);
  if (j.contains("error")) return Internal(j["error"].get<std::string>());
  SimResult r;
  r.step_times_s = j["step_times_s"].get<std::vector<double>>();
  r.transfers = j["transfers"].get<int64_t>();
  r.wire_bytes = j["wire_bytes"].get<int64_t>();
  return r;
}

// Runs `run` in a child process and returns its Status as text ("OK" or Status::ToString()).
// The test fails if the child dies (a SimGrid abort or crash): bad platforms must give a Status.
// `run` must not use Catch assertions.
inline std::string StatusInChild(const std::function<Status()>& run) {
  return TextFromChild([&] {
    const Status s = run();
    return s.ok() ? std::string("OK") : s.ToString();
  });
}

// Loads the platform `path` into a fresh Simulation in a child process; its Status as text.
inline std::string LoadPlatformInChild(const std::string& path) {
  return StatusInChild([&path] {
    Simulation sim;
    return sim.LoadPlatform(path);
  });
}

inline const char* kScalarConst =
    R"("attrs": {"value": {"tensor": {"dtype": "float", "shape": [], "values": [1]}}, "dtype": {"type": "float"}})";

// The null step (NullStepGraphJson(floats): w and upd of 4 x floats bytes, no compute) on
// star_4.xml with one parameter server and `workers` replicas, in a child process; `o` gives the
// steps and the rest (message costs, control plane).
inline StatusOr<SimResult> RunNullStepInChild(int64_t floats, int workers, SimRunOptions o) {
  return RunSimInChild([=]() mutable -> StatusOr<SimResult> {
    auto g = Graph::FromGraphDef(fb::test::ParseGraph(NullStepGraphJson(floats)));
    RETURN_IF_ERROR(g.status());
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(PlatformPath("star_4.xml")));
    o.workload.ps = 1;
    o.workload.replicas = workers;
    return sim.Run(**g, TableCosts({}, {{"w", 4 * floats}, {"upd", 4 * floats}}), o);
  });
}

// Every one of `steps` step times of `r` is `expected_s` (within 5 us).
inline void CheckStepTimes(const StatusOr<SimResult>& r, size_t steps, double expected_s) {
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE(r->step_times_s.size() == steps);
  for (double t : r->step_times_s) CHECK(t == Approx(expected_s).margin(5e-6));
}

// One replica of a toy training step: read w, "gradient" g, w -= lr * g (ApplyGradientDescent,
// colocated with w: on the parameter server). w is 250,000 floats (1 MB).
inline const char* kToyTrainingStep = R"({"nodes": [
  {"name": "w", "op": "Variable", "attrs": {"shape": {"shape": [250000]}, "dtype": {"type": "float"}}},
  {"name": "lr", "op": "Const", "attrs": {"value": {"tensor": {"dtype": "float", "shape": [], "values": [0.1]}}, "dtype": {"type": "float"}}},
  {"name": "read", "op": "Identity", "inputs": ["w"], "attrs": {"T": {"type": "float"}}},
  {"name": "g", "op": "Identity", "inputs": ["read"], "attrs": {"T": {"type": "float"}}},
  {"name": "apply", "op": "ApplyGradientDescent", "inputs": ["w", "lr", "g"], "attrs": {"T": {"type": "float"}}}
]})";

// Host properties of a CPU device with 10 GB/s of memory and no launch overhead (the core-sharing
// tests' hand-computed steps).
inline const std::map<std::string, std::string> kCpuProps = {
    {"device_type", "CPU"}, {"memory_bandwidth_bytes_per_s", "1e10"}, {"launch_overhead_ns", "0"}};

// Writes `text` to the file `name` in `dir`; returns its path.
inline std::string WriteFile(const fb::test::TempDir& dir, const std::string& name,
                             const std::string& text) {
  const std::string path = dir.file(name);
  std::ofstream(path) << text;
  return path;
}

}  // namespace fb::sim::test
