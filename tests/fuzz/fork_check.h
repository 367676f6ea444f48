#pragma once
// Runs a check in a forked child process, for code that cannot run many times in one process
// (SimGrid allows one engine per process) or that may abort instead of returning a Status.
// The child starts from the fuzzer's state and runs only the check; the parent waits for it.
// Coverage of the child is not fed back to libFuzzer, so keep the in-process part of a target
// (its validation) the part the fuzzer explores.
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace fb::fuzz {

// Runs `check` in a child process that must exit normally within `timeout_s` seconds. When it
// returns, the child exits 0. When the child crashes (a signal, an ASan/UBSan report, abort() in
// a library), or runs past the timeout (it is then killed), this prints what happened, naming
// `what`, and aborts: libFuzzer saves the input as a crash reproducer. The child's own reports
// (ASan, UBSan, a library's message before abort) are on stderr above.
template <typename Check>
void CheckInChild(const char* what, int timeout_s, const Check& check) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    std::abort();
  }
  if (pid == 0) {
    // The child reports by its exit status only: default signal actions (not libFuzzer's
    // handlers, which would save the input a second time), sanitizers exit 1 after their report
    // without calling back into libFuzzer, and an alarm ends it should the parent be gone.
    __sanitizer_set_death_callback(nullptr);
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM, SIGINT, SIGTERM})
      signal(sig, SIG_DFL);
    alarm(static_cast<unsigned>(timeout_s) + 2);
    check();
    std::fflush(nullptr);
    _exit(0);  // no atexit handlers: libraries' exit-time cleanup and leak checks are not ours
  }
  int status = 0;
  const timespec pause{0, 1000 * 1000};  // 1 ms
  const long max_polls = timeout_s * 1000L;
  for (long polls = 0; waitpid(pid, &status, WNOHANG) == 0; ++polls) {
    if (polls >= max_polls) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      std::fprintf(stderr, "==fuzz== %s: no answer after %d s (hang); child killed\n", what,
                   timeout_s);
      std::abort();
    }
    nanosleep(&pause, nullptr);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  if (WIFSIGNALED(status)) {
    std::fprintf(stderr, "==fuzz== %s: child killed by signal %d (%s)\n", what, WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
  } else {
    std::fprintf(stderr, "==fuzz== %s: child exited with status %d\n", what,
                 WEXITSTATUS(status));
  }
  std::abort();
}

}  // namespace fb::fuzz
