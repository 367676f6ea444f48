#pragma once
// Helpers shared by the libFuzzer targets of tests/fuzz (docs/reliability.md, "Fuzzing").
//
// The readers under test take a path, as the flowbench command line gives them one, so each
// target writes the fuzzer's input to a per-process scratch file and passes its path: the bytes a
// reader sees are exactly the fuzzer's, and the file code paths (open, size, gzip) are covered
// too. The file lives in /dev/shm when it exists (tmpfs: no disk I/O per execution), else in
// $TMPDIR or /tmp, and is removed when the process exits normally.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

namespace fb::fuzz {

// Writes `size` bytes at `data` to this process's scratch file "<dir>/flowbench-fuzz-<tag>-<pid>
// <suffix>" (truncating it) and returns its path. The same path is reused by every call with
// the same tag. Aborts if the file cannot be written: that is a broken fuzzing setup, not a
// finding about the input.
inline std::string WriteInputFile(const uint8_t* data, size_t size, const std::string& tag,
                                  const std::string& suffix = "") {
  static const std::string dir = [] {
    if (access("/dev/shm", W_OK) == 0) return std::string("/dev/shm");
    const char* tmp = std::getenv("TMPDIR");
    return std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  }();
  const std::string path =
      dir + "/flowbench-fuzz-" + tag + "-" + std::to_string(getpid()) + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  // Remove the scratch files at exit (libFuzzer returns from main after -runs/-max_total_time).
  static struct Remover {
    std::set<std::string> paths;
    ~Remover() {
      for (const std::string& p : paths) std::remove(p.c_str());
    }
  } remover;
  remover.paths.insert(path);
  return path;
}

}  // namespace fb::fuzz
