// `flowbench benchmark` end to end: the forward-only and the full training step of lenet at a
// tiny batch, the metrics JSON fields docs/benchmarks.md documents, refusals naming the flag,
// and a tiny --trace.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "datasets/fashion_mnist.h"
#include "datasets/idx_reader.h"
#include "engine/trace/trace_reader.h"
#include "tests/apps/cli.h"

namespace fb {
namespace {

// Runs `flowbench benchmark ARGS` in a fresh directory (stdout and stderr in files there).
struct BenchmarkCli : test::Cli {
  int Run(const std::string& args) { return test::Cli::Run("benchmark " + args); }
};

const char* kTiny =
    "--model lenet --batch-size 2 --num-batches 3 --num-warmup-batches 1 --threads 1 ";

// The fields docs/benchmarks.md lists.
// clang-format off
const char* kJsonFields[] = {
    "schema", "model", "mode", "batch_size", "examples_per_step", "example_unit",
    "num_batches", "num_warmup_batches", "optimizer", "learning_rate", "threads",
    "blas_threads", "devices", "device_names", "placer", "default_passes", "pass_reports",
    "seed", "data", "image_shape",
    "num_classes", "parameter_count", "forward_flops_per_example", "ms_per_step_median", "ms_per_step_p10",
    "ms_per_step_p90", "ms_per_step_mean", "examples_per_sec_mean",
    "examples_per_sec_uncertainty", "examples_per_sec_jitter", "examples_per_sec_median",
    "examples_per_sec_total", "peak_bytes_per_device", "peak_rss_bytes", "final_loss",
    "step_ms", "trace", "wall_s"};
// clang-format on

TEST_CASE(
    "flowbench benchmark runs lenet forward-only and the full step and "
    "writes metrics JSON",
    "[apps][benchmark]") {
  BenchmarkCli cli;
  for (const std::string mode : {"--forward-only", "--optimizer momentum"}) {
    INFO(mode);
    const int rc = cli.Run(kTiny + mode + " --metrics-json " + cli.dir + "/m.json");
    INFO(cli.Read("err.txt"));
    REQUIRE(rc == 0);
    const std::string out = cli.Read("out.txt");
    CHECK_THAT(out, Catch::Contains("Parameters:   61,706") && Catch::Contains("images/sec: ") &&
                        Catch::Contains("(jitter = ") && Catch::Contains("ms/step: ") &&
                        Catch::Contains("process peak RSS: ") &&
                        Catch::Contains("timing step 3/3"));
    auto j = nlohmann::json::parse(cli.Read("m.json"));
    for (const char* field : kJsonFields) {
      INFO(field);
      CHECK(j.contains(field));
    }
    CHECK(j.size() == std::size(kJsonFields));
    const bool forward = mode == "--forward-only";
    CHECK(j["schema"] == "flowbench-benchmark/1");
    CHECK(j["model"] == "lenet");
    CHECK(j["mode"] == (forward ? "forward" : "train"));
    CHECK(j["batch_size"] == 2);
    CHECK(j["examples_per_step"] == 2);
    CHECK(j["example_unit"] == "images");
    CHECK(j["parameter_count"] == 61706);
    CHECK(j["step_ms"].size() == 3);
    CHECK(j["ms_per_step_p10"] <= j["ms_per_step_median"]);
    CHECK(j["ms_per_step_median"] <= j["ms_per_step_p90"]);
    CHECK(j["examples_per_sec_mean"] > 0);
    CHECK(j["peak_bytes_per_device"].size() == 1);
    CHECK(j["peak_rss_bytes"] > 0);
    CHECK(j["final_loss"].is_null() == forward);
    CHECK(j["optimizer"] == (forward ? nlohmann::json(nullptr) : nlohmann::json("momentum")));
    // 2 x (conv1 + conv2 + fc1 + fc2 + logits multiply-adds) per image.
    CHECK(j["forward_flops_per_example"] ==
          2 * (28 * 28 * 6 * 25 + 10 * 10 * 16 * 150 + 400 * 120 + 120 * 84 + 84 * 10));
  }
}

void ExpectRejected(BenchmarkCli& cli, const std::string& args, const std::string& flag,
                    const std::string& value) {
  test::ExpectRejected(cli, "benchmark " + args, flag, value);
}

TEST_CASE("flowbench benchmark refuses bad flags naming the flag", "[apps][benchmark]") {
  BenchmarkCli cli;
  ExpectRejected(cli, "--num-batches 0", "--num-batches", "'0'");
  ExpectRejected(cli, "--num-warmup-batches -1", "--num-warmup-batches", "'-1'");
  ExpectRejected(cli, "--batch-size 0", "--batch-size", "'0'");
  ExpectRejected(cli, "--threads 0", "--threads", "'0'");
  ExpectRejected(cli, "--lr nan", "--lr", "nan");
  ExpectRejected(cli, "--devices cpu:0", "--devices", "cpu:0");
  ExpectRejected(cli, "--mode fwd", "--mode", "fwd");
  ExpectRejected(cli, "--optimizer rmsprop", "--optimizer", "rmsprop");
  ExpectRejected(cli, "--model nosuch", "--model", "unknown model 'nosuch' (known: ");
  ExpectRejected(cli, "--forward-only --mode train", "--mode", "--forward-only");
  ExpectRejected(cli, "--passes cse,nosuch", "--passes", "unknown graph pass 'nosuch' (registered: ");
  ExpectRejected(cli, std::string(kTiny) + "--dataset " + cli.dir + "/none", "--dataset",
                 cli.dir + "/none");
}

// Writes `n` MNIST-format training examples of rows x cols pixels into `dir`.
void WriteIdxTrainSplit(const std::string& dir, int64_t n, int64_t rows, int64_t cols) {
  datasets::IdxArray images{{n, rows, cols}, std::vector<uint8_t>(n * rows * cols, 128)};
  datasets::IdxArray labels{{n}, {}};
  for (int64_t i = 0; i < n; ++i) labels.data.push_back(static_cast<uint8_t>(i % 10));
  REQUIRE(
      datasets::WriteIdxFile(dir + "/" + datasets::MnistImagesFile(datasets::Split::kTrain), images)
          .ok());
  REQUIRE(
      datasets::WriteIdxFile(dir + "/" + datasets::MnistLabelsFile(datasets::Split::kTrain), labels)
          .ok());
}

TEST_CASE("flowbench benchmark --dataset reads IDX files that fit the model and names the flag",
          "[apps][benchmark]") {
  BenchmarkCli cli;
  std::filesystem::create_directories(cli.dir + "/fits");
  WriteIdxTrainSplit(cli.dir + "/fits", 4, 28, 28);
  const int rc = cli.Run(std::string(kTiny) + "--dataset " + cli.dir + "/fits --metrics-json " +
                         cli.dir + "/m.json");
  INFO(cli.Stderr());
  REQUIRE(rc == 0);
  auto j = nlohmann::json::parse(cli.Read("m.json"));
  CHECK(j["data"] == cli.dir + "/fits train");  // the name LoadMnistFormat gives the split

  std::filesystem::create_directories(cli.dir + "/small");
  WriteIdxTrainSplit(cli.dir + "/small", 4, 8, 8);
  ExpectRejected(cli, std::string(kTiny) + "--dataset " + cli.dir + "/small", "--dataset",
                 "[8,8,1] but model 'lenet' takes [28,28,1]");
  ExpectRejected(cli, "--model lenet --batch-size 8 --dataset " + cli.dir + "/fits", "--dataset",
                 "fewer than one batch of 8");
}

TEST_CASE("flowbench benchmark --help lists the modes without issue numbers", "[apps][benchmark]") {
  BenchmarkCli cli;
  REQUIRE(cli.Run("--help") == 0);
  const std::string out = cli.Read("out.txt");
  CHECK_THAT(out, Catch::Contains("--forward-only") && Catch::Contains("forward-backward") &&
                      Catch::Contains("--metrics-json"));
  CHECK_THAT(out, !Catch::Contains("issue", Catch::CaseSensitive::No));
}

TEST_CASE("flowbench benchmark --list-models prints the registered models", "[apps][benchmark]") {
  BenchmarkCli cli;
  REQUIRE(cli.Run("--list-models") == 0);
  CHECK_THAT(cli.Read("out.txt"), Catch::Contains("lenet\n") && Catch::Contains("mlp\n"));
}

TEST_CASE("flowbench benchmark --trace writes every timed step and the traced ones",
          "[apps][benchmark]") {
  BenchmarkCli cli;
  const int rc = cli.Run(std::string(kTiny) + "--trace-steps 2 --trace " + cli.dir + "/b.h5");
  INFO(cli.Read("err.txt"));
  REQUIRE(rc == 0);
  auto trace = TraceReader::Open(cli.dir + "/b.h5");
  INFO(trace.status().ToString());
  REQUIRE(trace.ok());
  CHECK(trace->steps.size() == 3 + 2);
  CHECK_FALSE(trace->events.empty());
  CHECK_FALSE(trace->ops.empty());
  CHECK_THAT(trace->metadata.config_json, Catch::Contains("\"command\":\"benchmark\""));
}


TEST_CASE("flowbench benchmark reports its own peak RSS and not its parent's",
          "[apps][benchmark]") {
  // getrusage's ru_maxrss survives fork and exec: a flowbench started by a 1 GiB process (as
  // compare_pytorch.py, a Python process that imported torch, starts it) reported 1 GiB.
  std::vector<char> ballast(size_t{1} << 30, 1);  // every page touched
  BenchmarkCli cli;
  const int rc = cli.Run(kTiny + std::string(" --forward-only --metrics-json ") + cli.dir +
                         "/m.json");
  INFO(cli.Read("err.txt"));
  REQUIRE(rc == 0);
  auto j = nlohmann::json::parse(cli.Read("m.json"));
  CHECK(j["peak_rss_bytes"] > 0);
  CHECK(j["peak_rss_bytes"] < int64_t{512} << 20);
  CHECK(ballast[size_t{1} << 29] == 1);
}

}  // namespace
}  // namespace fb
