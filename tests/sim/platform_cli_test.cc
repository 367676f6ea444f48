// `flowbench sim --platform` and `flowbench sim-platform` with bad platforms and bad
// arguments: a non-zero exit (not a signal) and a message naming the file or the argument.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

struct CommandResult {
  bool exited = false;  // false: killed by a signal (an abort or a crash)
  int code = 0;
  std::string err;
};

// Runs `flowbench ARGS` with stdout and stderr in files of `dir`.
CommandResult Flowbench(const std::string& args, const test::TempDir& dir) {
  const std::string err = dir.file("err.txt");
  const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench " + args + " > " +
                          dir.file("out.txt") + " 2> " + err;
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exited = WIFEXITED(status);
  r.code = r.exited ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  r.err = std::string(std::istreambuf_iterator<char>(in), {});
  return r;
}

std::string BadPlatform(const std::string& name) {
  return std::string(FB_SOURCE_DIR) + "/tests/data/bad/platform_" + name + ".xml";
}

TEST_CASE("flowbench sim names a platform that is a directory or not SimGrid XML",
          "[sim][platform][apps]") {
  test::TempDir dir;
  std::vector<std::string> paths = {dir.path(), dir.file("missing.xml")};
  for (const char* name : {"empty", "binary", "not_xml", "truncated", "zero_bandwidth"})
    paths.push_back(BadPlatform(name));
  for (const std::string& path : paths) {
    const CommandResult r = Flowbench("sim --model mlp --platform " + path, dir);
    INFO(path << ": exit " << r.code << ", stderr: " << r.err);
    CHECK(r.exited);
    CHECK(r.code != 0);
    CHECK_THAT(r.err, Catch::Contains("platform file '" + path + "'"));
    CHECK_THAT(r.err, !Catch::Contains("flex scanner"));
  }
}

TEST_CASE("flowbench sim with two hosts without a route and ps 1 replicas 1 names both hosts",
          "[sim][platform][apps]") {
  test::TempDir dir;
  const std::string path = BadPlatform("no_route");
  const CommandResult r = Flowbench("sim --model mlp --ps 1 --replicas 1 --platform " + path, dir);
  INFO("exit " << r.code << ", stderr: " << r.err);
  CHECK(r.exited);
  CHECK(r.code != 0);
  CHECK_THAT(r.err, Catch::Contains("platform file '" + path + "'"));
  // mlp's variables live on the PS (host a), its compute on the worker (host b).
  CHECK_THAT(r.err, Catch::Contains("no route from host '"));
  CHECK_THAT(r.err, Catch::Contains("'a'"));
  CHECK_THAT(r.err, Catch::Contains("'b'"));
}

TEST_CASE("flowbench sim-platform refuses bad sizes and rates and host counts",
          "[sim][platform][apps]") {
  test::TempDir dir;
  const std::string out = dir.file("p.xml");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"fat-tree:0:ib", "2 to 100000 nodes, got 0"},
      {"fat-tree:-4:ib", "got -4"},
      {"fat-tree:4x:ib", "the node count must be an integer, got '4x'"},
      {"fat-tree:99999999999:ib", "must be an integer"},
      {"fat-tree:2000000000:ib", "got 2000000000"},
      {"node:0:nvlink", "1 to 64 GPUs, got 0"},
      {"node:100000:nvlink", "got 100000"},
      {"cpu:nan:1e9", "FLOPS must be a finite number > 0, got 'nan'"},
      {"cpu:1e9:0", "MEMBW must be a finite number > 0, got '0'"},
      {"cpu:-1e9:1e9", "got '-1e9'"},
      {"cpu:inf:1e9", "got 'inf'"},
      {"mpi-node:worker=-1", "needs at least one task"},
      {"mpi-node:worker=2x", "a task count must be an integer"},
      {"mpi-node:worker=5000", "at most 256 tasks"},
      {"mpi-node:a<b=1", "job name must be a word"},
      {"torus:4", "expected fat-tree"},
      // Was "platform file '<out>': line 24: host 'worker0': a second host or router named
      // 'worker0'", blaming the output file.
      {"mpi-node:worker=2,ps=1,worker=3",
       "job 'worker' is given twice in 'worker=2,ps=1,worker=3'"},
  };
  for (const auto& [spec, expected] : bad) {
    const CommandResult r = Flowbench("sim-platform '" + spec + "' " + out, dir);
    INFO(spec << ": exit " << r.code << ", stderr: " << r.err);
    CHECK(r.exited);
    CHECK(r.code != 0);
    CHECK_THAT(r.err, Catch::Contains("platform spec '" + spec + "'"));
    CHECK_THAT(r.err, Catch::Contains(expected));
    CHECK_FALSE(std::filesystem::exists(out));
  }
  const CommandResult ok = Flowbench("sim-platform fat-tree:8:ib " + out, dir);
  INFO(ok.err);
  CHECK(ok.code == 0);
  CHECK(std::filesystem::exists(out));
}

TEST_CASE("flowbench sim-platform refuses core-sharing flags where nothing shares cores",
          "[sim][platform][apps]") {
  // They were ignored without a word: fat-tree:4:ib --cores 1 wrote the same file as without.
  test::TempDir dir;
  const std::string out = dir.file("p.xml");
  for (const std::string& args : {std::string("fat-tree:4:ib --cores 1"),
                                  std::string("node:2:pcie --exec-threads 3"),
                                  std::string("cpu:1e9:1e9 --cores 0"),
                                  std::string("fat-tree:2:10gbe --wait-core-weight 1")}) {
    const CommandResult r = Flowbench("sim-platform " + args + " " + out, dir);
    INFO(args << ": " << r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("--exec-threads and --wait-core-weight apply to mpi-node, "
                                      "emulated and cpu-devices platforms, not '" +
                                      args.substr(0, args.find(' ')) + "'"));
    CHECK_FALSE(std::filesystem::exists(out));
  }
  CHECK(Flowbench("sim-platform cpu-devices:2 " + out + " --cores 1 --exec-threads 1", dir).code ==
        0);
}

}  // namespace
}  // namespace fb
