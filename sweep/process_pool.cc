#include "sweep/process_pool.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace fb::sweep {

using Clock = std::chrono::steady_clock;

std::string ProcessResult::Describe() const {
  if (timed_out) return fmt::format("timeout after {:.1f} s", wall_s);
  if (signal) return fmt::format("signal {} ({})", signal, strsignal(signal));
  return exit_status == 0 ? "ok" : fmt::format("exit {}", exit_status);
}

std::vector<std::string> EnvironmentWithoutMpiRank() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string v = *e;
    if (v.rfind("OMPI_", 0) == 0 || v.rfind("PMIX_", 0) == 0 || v.rfind("PMI_", 0) == 0) continue;
    env.push_back(v);
  }
  return env;
}

std::string UtcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

struct Running {
  size_t task;
  pid_t pid;
  Clock::time_point start;
  ProcessResult result;
  bool killed = false;
};

std::string Tail(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > static_cast<std::streamoff>(kStderrTailBytes)
                                  ? size - static_cast<std::streamoff>(kStderrTailBytes)
                                  : 0;
  in.seekg(from);
  std::string s(static_cast<size_t>(size - from), '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  return s;
}

// In the child, after fork: only async-signal-safe calls.
[[noreturn]] void ExecChild(char* const* argv, char* const* envp, const char* out,
                            const char* err) {
  setpgid(0, 0);
  const int o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int e = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (o >= 0) dup2(o, 1);
  if (e >= 0) dup2(e, 2);
  const int in = open("/dev/null", O_RDONLY);
  if (in >= 0) dup2(in, 0);
  if (envp) {
    execve(argv[0], argv, envp);
  } else {
    execv(argv[0], argv);
  }
  const char* msg = "sweep: cannot execute the point's program: ";
  (void)!write(2, msg, strlen(msg));
  const char* why = strerror(errno);
  (void)!write(2, why, strlen(why));
  (void)!write(2, "\n", 1);
  _exit(127);
}

StatusOr<Running> Start(const ProcessSpec& spec, size_t task) {
  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string out = spec.stdout_path.empty() ? "/dev/null" : spec.stdout_path;
  const std::string err = spec.stderr_path.empty() ? "/dev/null" : spec.stderr_path;
  Running r{task, -1, Clock::now(), {}};
  r.result.start_time = UtcNow();
  const pid_t pid = fork();
  if (pid < 0) return Internal("cannot fork for '", spec.argv.at(0), "': ", std::strerror(errno));
  if (pid == 0)
    ExecChild(argv.data(), spec.env.empty() ? nullptr : envp.data(), out.c_str(), err.c_str());
  setpgid(pid, pid);  // also from the parent, so that a kill right away reaches the group
  r.pid = pid;
  return r;
}

// True when the child ended; fills in its result.
bool Reap(Running* r, const ProcessSpec& spec) {
  int status = 0;
  if (waitpid(r->pid, &status, WNOHANG) != r->pid) return false;
  ProcessResult& res = r->result;
  res.wall_s = std::chrono::duration<double>(Clock::now() - r->start).count();
  if (WIFEXITED(status)) res.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
  res.stderr_tail = spec.stderr_path.empty() ? "" : Tail(spec.stderr_path);
  return true;
}

void StopAll(std::vector<Running>* running) {
  for (Running& r : *running) kill(-r.pid, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  for (Running& r : *running) {
    int status = 0;
    while (waitpid(r.pid, &status, WNOHANG) == 0) {
      if (Clock::now() > deadline) kill(-r.pid, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  running->clear();
}

}  // namespace

Status RunProcesses(const std::vector<ProcessSpec>& tasks, int jobs,
                    const std::function<void(size_t, const ProcessResult&)>& done,
                    const std::function<void(size_t)>& tick, const std::atomic<bool>* stop) {
  std::vector<Running> running;
  size_t next = 0;
  if (jobs < 1) jobs = 1;
  while (next < tasks.size() || !running.empty()) {
    if (stop && stop->load()) {
      StopAll(&running);
      return Cancelled("sweep interrupted: ", tasks.size() - next, " runs not started");
    }
    while (next < tasks.size() && static_cast<int>(running.size()) < jobs) {
      ASSIGN_OR_RETURN(Running r, Start(tasks[next], next));
      running.push_back(std::move(r));
      ++next;
    }
    bool any = false;
    for (size_t i = 0; i < running.size();) {
      Running& r = running[i];
      const ProcessSpec& spec = tasks[r.task];
      if (!r.killed && Clock::now() - r.start > std::chrono::duration<double>(spec.timeout_s)) {
        kill(-r.pid, SIGKILL);
        r.killed = true;
        r.result.timed_out = true;
      }
      if (Reap(&r, spec)) {
        ProcessResult res = std::move(r.result);
        const size_t task = r.task;
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        done(task, res);
        any = true;
      } else {
        ++i;
      }
    }
    if (tick) tick(running.size());
    if (!any) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Status::OK();
}

}  // namespace fb::sweep
