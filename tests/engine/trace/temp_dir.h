#pragma once
// A temporary directory for tests that write files (traces, checkpoints); removed with its
// contents when the object goes out of scope, unless FLOWBENCH_KEEP_TEST_FILES is set (for
// looking at the files a failing test wrote).
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

namespace fb::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "flowbench-test-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    if (std::getenv("FLOWBENCH_KEEP_TEST_FILES")) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace fb::test
