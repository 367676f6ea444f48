// `flowbench run` end to end: a GraphDef file and .npy feeds in, .npy fetches out; bad input
// gives a non-zero exit and a message naming what is wrong.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <catch2/catch.hpp>

#include "engine/io/npy.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/test_util.h"

namespace fb {
namespace {

namespace fs = std::filesystem;

// y = Relu(W x), W = [[1, -1], [2, 0]] (whitepaper Figure 1 without the bias).
const char* kGraph = R"({"version": 1, "nodes": [
  {"name": "x", "op": "Placeholder", "attrs": {"dtype": "float", "shape": [2, 1]}},
  {"name": "W", "op": "Const", "attrs": {"dtype": "float",
     "value": {"tensor": {"dtype": "float", "shape": [2, 2], "values": [1, -1, 2, 0]}}}},
  {"name": "Wx", "op": "MatMul", "inputs": ["W", "x"], "attrs": {"T": "float"}},
  {"name": "y", "op": "Relu", "inputs": ["Wx"], "attrs": {"T": "float"}}]})";

// A fresh directory per test (ctest runs tests in parallel) holding the graph file.
struct RunDir {
  test::TempDir temp;
  fs::path dir = temp.path();
  RunDir() { std::ofstream(dir / "g.json") << kGraph; }
  explicit RunDir(const std::string& graph) { std::ofstream(dir / "g.json") << graph; }
  // Runs `flowbench run ARGS`, stderr to dir/err.txt; returns the exit status.
  int Run(const std::string& args) const {
    std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench run --graph " +
                      (dir / "g.json").string() + " " + args + " > " + (dir / "out.txt").string() +
                      " 2> " + (dir / "err.txt").string();
    return std::system(cmd.c_str());
  }
  std::string Stderr() const {
    std::ifstream in(dir / "err.txt");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_CASE("flowbench run feeds .npy files and writes fetches as .npy", "[apps][run]") {
  RunDir d;
  REQUIRE(WriteNpy(Tensor::FromVector<float>({3, 5}, {2, 1}), (d.dir / "x.npy").string()).ok());
  int rc = d.Run("--feed x:0=" + (d.dir / "x.npy").string() + " --fetch y:0 --fetch Wx:0 --out " +
                 (d.dir / "out").string());
  INFO(d.Stderr());
  REQUIRE(rc == 0);
  auto y = ReadNpy((d.dir / "out" / "y_0.npy").string());
  REQUIRE(y.ok());
  // W x = [3 - 5, 6] = [-2, 6]; Relu -> [0, 6].
  CHECK(TensorsEqual(*y, Tensor::FromVector<float>({0, 6}, {2, 1})));
  auto wx = ReadNpy((d.dir / "out" / "Wx_0.npy").string());
  REQUIRE(wx.ok());
  CHECK(TensorsEqual(*wx, Tensor::FromVector<float>({-2, 6}, {2, 1})));
}

TEST_CASE("flowbench run reports bad feeds and fetches", "[apps][run][errors]") {
  RunDir d;
  std::string out = " --out " + (d.dir / "out").string();
  CHECK(d.Run("--feed x:0=" + (d.dir / "missing.npy").string() + " --fetch y:0" + out) != 0);
  CHECK_THAT(d.Stderr(), Catch::Contains("missing.npy"));

  REQUIRE(WriteNpy(Tensor::FromVector<int32_t>({3, 5}, {2, 1}), (d.dir / "xi.npy").string()).ok());
  CHECK(d.Run("--feed x:0=" + (d.dir / "xi.npy").string() + " --fetch y:0" + out) != 0);
  CHECK_THAT(d.Stderr(), Catch::Contains("x:0") && Catch::Contains("int32"));

  REQUIRE(WriteNpy(Tensor::FromVector<float>({3, 5}, {2, 1}), (d.dir / "x.npy").string()).ok());
  CHECK(d.Run("--feed x:0=" + (d.dir / "x.npy").string() + " --fetch nope:0" + out) != 0);
  CHECK_THAT(d.Stderr(), Catch::Contains("nope"));
  CHECK_FALSE(fs::exists(d.dir / "out" / "nope_0.npy"));
}

// The longest line of `text`, in bytes.
size_t LongestLine(const std::string& text) {
  size_t longest = 0, start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    longest = std::max(longest, end - start);
    start = end + 1;
  }
  return longest;
}

TEST_CASE("flowbench run keeps error lines short for 10 MB names, attrs and devices",
          "[apps][run][errors]") {
  const std::string big(10 << 20, 'z');
  const std::pair<const char*, std::string> graphs[] = {
      {"op name", R"({"nodes": [{"name": "y", "op": ")" + big + R"("}]})"},
      {"node name", R"({"nodes": [{"name": ")" + big +
                        R"(", "op": "Placeholder", "attrs": {"dtype": "float"}},
                       {"name": "y", "op": "Identity", "inputs": [")" + big + R"(:3"],
                        "attrs": {"T": "float"}}]})"},
      {"attr value", R"({"nodes": [{"name": "y", "op": "Placeholder",
                        "attrs": {"dtype": {"s": ")" + big + R"("}}}]})"},
      {"untagged attr value", R"({"nodes": [{"name": "y", "op": "Placeholder",
                                 "attrs": {"dtype": ")" + big + R"("}}]})"},
      {"attr name", R"({"nodes": [{"name": "y", "op": "Placeholder", "attrs": {"dtype": "float",
                       ")" + big + R"(": {"i": 1}}}]})"},
      {"device string", R"({"nodes": [{"name": "y", "op": "Placeholder", "device": "/job:)" +
                            big + R"(", "attrs": {"dtype": "float"}}]})"},
  };
  for (const auto& [what, graph] : graphs) {
    INFO(what);
    RunDir d(graph);
    CHECK(d.Run("--fetch y:0 --out " + (d.dir / "out").string()) != 0);
    std::string err = d.Stderr();
    INFO(err.substr(0, 2000));
    CHECK_THAT(err, Catch::Contains("flowbench run:"));
    CHECK(LongestLine(err) < 1500);
  }
}

TEST_CASE("flowbench run names the node whose Const value is out of range", "[apps][run][errors]") {
  RunDir d(R"({"nodes": [{"name": "big", "op": "Const", "attrs": {"dtype": "int32",
                "value": {"tensor": {"dtype": "int32", "shape": [], "values": [4000000000]}}}}]})");
  CHECK(d.Run("--fetch big:0 --out " + (d.dir / "out").string()) != 0);
  CHECK_THAT(d.Stderr(), Catch::Contains("'big'") && Catch::Contains("4000000000") &&
                             Catch::Contains("int32"));
}

}  // namespace
}  // namespace fb
