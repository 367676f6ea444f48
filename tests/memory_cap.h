#pragma once
// Runs a function in a forked child whose address space is capped (RLIMIT_AS) at what the test
// process already maps plus `extra_bytes`. Tests use it to show that a reader never allocates what
// a file merely claims: code that allocates first dies there of an uncaught std::bad_alloc (or
// an FB_CHECK), whatever the machine's memory and overcommit settings.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>
#include <functional>

namespace fb::test {

// The child's exit code: 0 when fn returned true, 1 when it returned false, 128 + the signal
// when it crashed. Under ASan or TSan (which reserve terabytes of address space) fn runs in the
// test process itself, uncapped.
inline int RunWithMemoryCap(const std::function<bool()>& fn,
                            size_t extra_bytes = size_t{1} << 30) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  (void)extra_bytes;
  return fn() ? 0 : 1;
#else
  const pid_t pid = fork();
  if (pid == 0) {
    size_t pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    rlimit cap;
    cap.rlim_cur = cap.rlim_max = pages * static_cast<size_t>(sysconf(_SC_PAGE_SIZE)) + extra_bytes;
    setrlimit(RLIMIT_AS, &cap);
    _exit(fn() ? 0 : 1);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
#endif
}

}  // namespace fb::test
