#include "mpi/supervisor.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace fb::mpi {

namespace {
// Runs `argv` and returns its wait status.
StatusOr<int> RunOnce(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return Internal("supervisor: fork failed: ", std::strerror(errno));
  if (pid == 0) {
    execvp(args[0], args.data());
    std::fprintf(stderr, "supervisor: cannot run '%s': %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return Internal("supervisor: waitpid failed: ", std::strerror(errno));
  return status;
}

std::string Describe(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "wait status " + std::to_string(status);
}
}  // namespace

StatusOr<int> Supervise(const std::vector<std::string>& command, const SupervisorOptions& options) {
  if (command.empty()) return InvalidArgument("supervisor: no command to run");
  std::vector<std::string> argv = command;
  for (int attempt = 0;; ++attempt) {
    ASSIGN_OR_RETURN(int status, RunOnce(argv));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return attempt;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
      return Internal("supervisor: cannot run '", argv[0], "'");
    if (attempt >= options.max_restarts)
      return Aborted("supervisor: '", command[0], "' failed ", attempt + 1, " times, last with ",
                     Describe(status));
    std::fprintf(stderr, "flowbench supervise: job failed (%s); restart %d of %d with %s\n",
                 Describe(status).c_str(), attempt + 1, options.max_restarts,
                 options.resume_flag.c_str());
    if (attempt == 0 && !options.resume_flag.empty()) argv.push_back(options.resume_flag);
  }
}

}  // namespace fb::mpi
