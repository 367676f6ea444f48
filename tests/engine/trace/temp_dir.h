#pragma once
// A temporary directory for tests that write files (traces, checkpoints); removed with its
// contents when the object goes out of scope.
#include <stdlib.h>

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
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace fb::test
