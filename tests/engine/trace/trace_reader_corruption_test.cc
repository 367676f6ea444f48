// TraceReader on corrupt files: seeded byte-level mutations of small real traces of both schema
// versions, and files that crashed or hung version 1's reader inside libhdf5 (tests/data/bad/).
// Each must read, or fail with an error naming the file, within a time bound.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include <catch2/catch.hpp>

#include "engine/trace/trace_reader.h"
#include "tests/engine/trace/corrupt_trace_util.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

// The deadline of each isolated read, and the bound a test allows it (fork and read included).
constexpr double kReadTimeoutS = 2;
constexpr double kMaxSecondsPerRead = 10;

// Mutations per schema version; FLOWBENCH_TRACE_MUTATIONS=N runs a larger campaign (and prints
// its counts).
uint64_t NumMutations() {
  const char* env = std::getenv("FLOWBENCH_TRACE_MUTATIONS");
  return env ? std::strtoull(env, nullptr, 10) : 150;
}

// Reads `path` and checks the outcome; returns "ok", "error", "crash" or "hang" (the last two:
// errors of the isolation, which the reader's own checks did not prevent).
std::string CheckRead(const std::string& path) {
  TraceReadOptions options;
  options.timeout_s = kReadTimeoutS;
  const auto start = std::chrono::steady_clock::now();
  auto t = TraceReader::Open(path, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(path << ": " << t.status().ToString());
  CHECK(seconds < kMaxSecondsPerRead);
  if (t.ok()) return "ok";
  CHECK_THAT(t.status().message(), Catch::StartsWith(path + ": "));
  const Code code = t.status().code();
  CHECK((code == Code::kDataLoss || code == Code::kInvalidArgument || code == Code::kNotFound ||
         code == Code::kFailedPrecondition));
  const std::string& m = t.status().message();
  if (m.find("reading the trace crashed") != std::string::npos) return "crash";
  if (m.find("did not finish within") != std::string::npos) return "hang";
  return "error";
}

void RunCampaign(const std::string& original, uint64_t seed, const test::TempDir& dir) {
  const std::string bytes = test::ReadBytes(original);
  REQUIRE(bytes.size() > 1000);
  std::map<std::string, int> counts;
  const uint64_t n = NumMutations();
  for (uint64_t i = 0; i < n; ++i) {
    const std::string path = dir.file("m" + std::to_string(i) + ".h5");
    test::WriteBytes(path, test::Mutate(bytes, seed, i));
    const std::string outcome = CheckRead(path);
    ++counts[outcome];
    // Files the isolation had to catch stay for inspection when the directory is kept.
    if (outcome == "ok" || outcome == "error" || !std::getenv("FLOWBENCH_KEEP_TEST_FILES"))
      std::filesystem::remove(path);
  }
  if (std::getenv("FLOWBENCH_TRACE_MUTATIONS")) {
    std::cout << original << ": " << n << " mutations:";
    for (const auto& [outcome, count] : counts) std::cout << " " << outcome << " " << count;
    std::cout << "\n";
  }
}

TEST_CASE("TraceReader reads or rejects every mutation of a version-2 trace", "[trace][errors]") {
  test::TempDir dir;
  RunCampaign(test::WriteSmallTraceV2(dir.file("v2.h5")), 2, dir);
}

TEST_CASE("TraceReader reads or rejects every mutation of a version-1 trace", "[trace][errors]") {
  test::TempDir dir;
  const std::string path = test::WriteSmallTraceV2(dir.file("v1.h5"));
  test::DowngradeToV1(path);
  RunCampaign(path, 1, dir);
}

TEST_CASE("TraceReader rejects the version-1 traces that crashed or hung libhdf5",
          "[trace][errors]") {
  const std::filesystem::path bad = std::filesystem::path(FB_SOURCE_DIR) / "tests/data/bad";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(bad)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("trace_v1_", 0) != 0) continue;
    ++files;
    auto t = TraceReader::Open(entry.path().string());
    INFO(name << ": " << t.status().ToString());
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == Code::kDataLoss);
    CHECK_THAT(t.status().message(), Catch::StartsWith(entry.path().string() + ": "));
    // The reader's own checks catch them: none needs the isolation's crash or deadline errors.
    CHECK_THAT(t.status().message(), !Catch::Contains("crashed") &&
                                         !Catch::Contains("did not finish"));
  }
  CHECK(files >= 3);
}

}  // namespace
}  // namespace fb
