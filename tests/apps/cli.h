#pragma once
// Runs the `flowbench` binary (FB_BINARY_DIR/flowbench) from command-line tests, each in a fresh
// directory (ctest runs tests in parallel) that holds the command's stdout, stderr and outputs.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/engine/trace/temp_dir.h"

namespace fb::test {

// A fresh directory per test (ctest runs tests in parallel) for the command's output.
struct Cli {
  test::TempDir temp;
  std::string dir = temp.path();
  double seconds = 0;  // wall time of the last Run
  // Runs `flowbench ARGS` with stdout and stderr in files; returns the exit status.
  int Run(const std::string& args) {
    const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench " + args + " > " + dir +
                            "/out.txt 2> " + dir + "/err.txt";
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = std::system(cmd.c_str());
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  }
  std::string Read(const std::string& name) const {
    std::ifstream in(dir + "/" + name);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string Stderr() const { return Read("err.txt"); }
  std::string Stdout() const { return Read("out.txt"); }
  // A small text corpus for `flowbench lstm` (train and held-out windows of 129 characters).
  std::string Corpus() const {
    std::filesystem::create_directories(dir + "/corpus");
    std::ofstream out(dir + "/corpus/text");
    for (int i = 0; i < 200; ++i)
      out << "the quick brown fox jumps over the lazy dog " << i << "\n";
    return dir + "/corpus";
  }
};

// Runs `flowbench ARGS`, expecting a refusal whose message names `flag` and quotes `value`.
inline void ExpectRejected(Cli& cli, const std::string& args, const std::string& flag,
                           const std::string& value) {
  INFO("flowbench " << args);
  const int rc = cli.Run(args);
  INFO("stderr: " << cli.Stderr());
  CHECK(rc != 0);
  CHECK(rc < 128);  // an error, not a signal
  CHECK_THAT(cli.Stderr(), Catch::Contains(flag) && Catch::Contains(value));
}

}  // namespace fb::test
