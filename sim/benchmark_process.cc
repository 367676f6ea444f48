#include "sim/benchmark_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

namespace fb::sim {
namespace {

std::vector<std::string> Argv(const std::string& binary, const experiments::BenchmarkOptions& o,
                              const std::string& metrics_path) {
  std::vector<std::string> a = {binary,
                                "benchmark",
                                "--model", o.model,
                                "--batch-size", std::to_string(o.model_options.batch_size),
                                "--optimizer", o.model_options.optimizer,
                                "--mode", experiments::BenchmarkModeName(o.mode),
                                "--threads", std::to_string(o.threads),
                                "--devices", o.devices,
                                "--num-batches", std::to_string(o.num_batches),
                                "--num-warmup-batches", std::to_string(o.num_warmup_batches),
                                "--metrics-json", metrics_path};
  if (!o.trace_path.empty())
    a.insert(a.end(), {"--trace", o.trace_path, "--trace-steps", std::to_string(o.trace_steps)});
  return a;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

// The last `n` lines of `path`.
std::string Tail(const std::string& path, int n) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string out;
  for (size_t i = lines.size() > static_cast<size_t>(n) ? lines.size() - n : 0; i < lines.size();
       ++i)
    out += "\n  " + lines[i];
  return out;
}

// fork + execv with stdout and stderr to `log_path`; the child's wait status, or -1 (errno set).
int Spawn(const std::vector<std::string>& argv, const std::string& log_path) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return status;
}

}  // namespace

StatusOr<experiments::BenchmarkResult> RunBenchmarkProcess(const std::string& binary,
                                                           const experiments::BenchmarkOptions& o,
                                                           const std::string& metrics_path) {
  if (o.dataset) return InvalidArgument("profile: a benchmark process runs synthetic input only");
  const std::vector<std::string> argv = Argv(binary, o, metrics_path);
  const std::string log_path = metrics_path + ".log";
  const int status = Spawn(argv, log_path);
  const int spawn_errno = errno;  // before the file calls below change it
  const std::string tail = Tail(log_path, 8);
  std::remove(log_path.c_str());
  if (status < 0) return Internal("cannot run '", Join(argv), "': ", std::strerror(spawn_errno));
  if (WIFSIGNALED(status))
    return Internal("'", Join(argv), "' died of signal ", WTERMSIG(status), tail);
  if (WEXITSTATUS(status) != 0)
    return Internal("'", Join(argv), "' exited with status ", WEXITSTATUS(status), tail);
  std::ifstream in(metrics_path);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  std::remove(metrics_path.c_str());
  if (j.is_discarded() || !j.contains("step_ms") || !j["step_ms"].is_array() ||
      !j.contains("device_names") || !j["device_names"].is_array())
    return Internal("'", Join(argv), "' wrote no readable metrics JSON to ", metrics_path);
  experiments::BenchmarkResult r;
  r.model = o.model;
  r.batch_size = o.model_options.batch_size;
  for (const auto& ms : j["step_ms"])
    if (ms.is_number()) r.step_ms.push_back(ms.get<double>());
  for (const auto& d : j["device_names"])
    if (d.is_string()) r.devices.push_back(d.get<std::string>());
  if (r.step_ms.empty())
    return Internal("'", Join(argv), "' reported no timed step in ", metrics_path);
  return r;
}

}  // namespace fb::sim
