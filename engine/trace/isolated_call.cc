#include "engine/trace/isolated_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>

namespace fb {
namespace {

// The answer on the pipe: one byte (the Status code), eight bytes (payload length, little
// endian), then the payload (the bytes on success, the message on failure).
constexpr size_t kHeaderBytes = 9;

bool WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

void SendAnswer(int fd, Code code, const std::string& payload) {
  char header[kHeaderBytes];
  header[0] = static_cast<char>(code);
  uint64_t n = payload.size();
  for (int i = 0; i < 8; ++i) header[1 + i] = static_cast<char>((n >> (8 * i)) & 0xff);
  if (WriteAll(fd, header, kHeaderBytes)) WriteAll(fd, payload.data(), payload.size());
}

[[noreturn]] void RunChild(const std::function<StatusOr<std::string>()>& fn, int fd) {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) signal(sig, SIG_DFL);
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd >= 0) {
    dup2(null_fd, STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
  }
  try {
    StatusOr<std::string> r = fn();
    if (r.ok()) {
      SendAnswer(fd, Code::kOk, *r);
    } else {
      SendAnswer(fd, r.status().code(), r.status().message());
    }
  } catch (const std::bad_alloc&) {
    SendAnswer(fd, Code::kResourceExhausted, "out of memory");
  } catch (const std::exception& e) {
    SendAnswer(fd, Code::kInternal, e.what());
  }
  _exit(0);
}

// Reads the child's answer until it is complete (its header's length), EOF or the deadline;
// false on timeout.
bool ReadAnswer(int fd, std::chrono::steady_clock::time_point deadline, std::string* out) {
  char buf[1 << 16];
  while (true) {
    if (out->size() >= kHeaderBytes) {
      uint64_t n = 0;
      for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>((*out)[1 + i]);
      if (out->size() - kHeaderBytes >= n) return true;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    struct pollfd p = {fd, POLLIN, 0};
    int rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) return false;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // EOF (or a read error: the answer is then incomplete)
    out->append(buf, static_cast<size_t>(n));
  }
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return "crashed (signal " + std::to_string(sig) + (name ? std::string(": ") + name : "") + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "stopped";
}

StatusOr<std::string> ParseAnswer(const std::string& answer, int status,
                                  const IsolatedCallOptions& o) {
  if (answer.size() >= kHeaderBytes) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(answer[1 + i]);
    if (n == answer.size() - kHeaderBytes) {
      const Code code = static_cast<Code>(static_cast<unsigned char>(answer[0]));
      std::string payload = answer.substr(kHeaderBytes);
      if (code == Code::kOk) return payload;
      return Status(code, std::move(payload));
    }
  }
  return DataLoss(o.path, ": ", o.what, " ", DescribeExit(status), ": the file is corrupt");
}

}  // namespace

StatusOr<std::string> RunIsolated(const std::function<StatusOr<std::string>()>& fn,
                                  const IsolatedCallOptions& o) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return Internal(o.path, ": ", o.what, ": pipe failed: ", std::strerror(errno));
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(o.timeout_s));
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(fds[0]);
    close(fds[1]);
    return Internal(o.path, ": ", o.what, ": fork failed: ", std::strerror(err));
  }
  if (pid == 0) {
    close(fds[0]);
    RunChild(fn, fds[1]);
  }
  close(fds[1]);
  std::string answer;
  const bool finished = ReadAnswer(fds[0], deadline, &answer);
  close(fds[0]);
  // A complete answer: the child only has _exit left; otherwise it is stuck (or past the deadline).
  if (!finished) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished)
    return DataLoss(o.path, ": ", o.what, " did not finish within ", o.timeout_s,
                    " s (a loop in corrupt structures?): the file is corrupt");
  return ParseAnswer(answer, status, o);
}

}  // namespace fb
