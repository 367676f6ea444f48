// The devices of a --devices flag (engine/runtime/local_devices.h) and the commands that take
// it: cpu:N makes only CPU devices, gpu:N the host CPU and N GPUs, and without a visible GPU
// gpu:N is refused with a message naming the flag (the CPU machines of CI have no GPU).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "datasets/synthetic.h"
#include "engine/framework/device_plugin.h"
#include "engine/placement/device_config.h"
#include "engine/runtime/local_devices.h"
#include "experiments/training/benchmark.h"
#include "experiments/training/trainer.h"
#include "tests/apps/cli.h"

namespace fb {
namespace {

// The GPU factory registers when the GPU module loads (engine/framework/device_plugin.h) and
// a GPU is visible.
bool GpuVisible() {
  if (!LoadDeviceSupport(DEVICE_GPU).ok()) return false;
  for (const std::string& t : DeviceFactory::RegisteredTypes())
    if (t == DEVICE_GPU) return true;
  return false;
}

TEST_CASE("The flag --devices cpu:N makes N CPU devices and no GPU device", "[runtime][devices]") {
  auto mgr = CreateDevicesForFlag("cpu:3", 6);
  INFO(mgr.status().ToString());
  REQUIRE(mgr.ok());
  REQUIRE((*mgr)->devices().size() == 3);
  for (Device* d : (*mgr)->devices()) CHECK(d->device_type() == DEVICE_CPU);
  CHECK((*mgr)->devices()[2]->name() == "/job:localhost/replica:0/task:0/device:CPU:2");
  CHECK(DescribeDevicesForMetrics(**mgr).size() == 3);
  auto bad = CreateDevicesForFlag("cpu:3", 0);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("threads must be >= 1"));
}

TEST_CASE("The flag --devices gpu:N parses into the host CPU and N GPUs", "[runtime][devices]") {
  auto flag = ParseDevicesFlag("GPU:2");
  REQUIRE(flag.ok());
  CHECK(flag->type == "GPU");
  CHECK(flag->count == 2);
  DeviceSet set = FlagDevices(*flag);
  REQUIRE(set.size() == 3);
  CHECK(set[0].name == "/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(set[2].name == "/job:localhost/replica:0/task:0/device:GPU:1");
  CHECK(set[2].type == "GPU");
  auto bad = ParseDevicesFlag("gpu:");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("--devices 'gpu:'"));
}

TEST_CASE("The flag --devices gpu:1 without a visible GPU is refused naming the flag",
          "[runtime][devices]") {
  if (GpuVisible()) return;  // this machine has a GPU: tests/gpu covers gpu:1
  auto mgr = CreateDevicesForFlag("gpu:1", 2);
  REQUIRE_FALSE(mgr.ok());
  CHECK(mgr.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(mgr.status().message(),
             Catch::Contains("--devices gpu:1: no GPU visible (cudaGetDeviceCount found none"));

  experiments::BenchmarkOptions b;
  b.devices = "gpu:1";
  b.num_batches = 1;
  b.num_warmup_batches = 0;
  b.model_options.batch_size = 2;
  auto br = experiments::RunBenchmark(b);
  REQUIRE_FALSE(br.ok());
  CHECK_THAT(br.status().message(), Catch::Contains("--devices gpu:1: no GPU visible"));

  experiments::TrainOptions t;
  t.devices = "gpu:1";
  t.model = "mlp";
  t.model_options.batch_size = 8;
  datasets::SyntheticOptions so;
  so.num_examples = 16;
  auto train = datasets::MakeSyntheticDataset(so);
  REQUIRE(train.ok());
  auto tr = experiments::Train(t, *train, nullptr);
  REQUIRE_FALSE(tr.ok());
  CHECK_THAT(tr.status().message(), Catch::Contains("--devices gpu:1: no GPU visible"));
}

TEST_CASE("flowbench train and benchmark take --devices gpu:N and refuse it without a GPU",
          "[apps][devices]") {
  test::Cli cli;
  // gpu:N passes the flag check; gpu:0 and gpu:65 do not.
  test::ExpectRejected(cli, "train --devices gpu:0", "--devices", "gpu:0");
  test::ExpectRejected(cli, "benchmark --devices gpu:65", "--devices", "gpu:65");
  if (GpuVisible()) return;
  test::ExpectRejected(cli, "train --dataset synthetic --steps 1 --devices gpu:1", "--devices gpu:1",
                       "no GPU visible");
  test::ExpectRejected(cli,
                       "benchmark --model lenet --batch-size 2 --num-batches 1 "
                       "--num-warmup-batches 0 --devices gpu:1",
                       "--devices gpu:1", "no GPU visible");
}

TEST_CASE("flowbench train and benchmark metrics JSON name the devices", "[apps][devices]") {
  test::Cli cli;
  REQUIRE(cli.Run("benchmark --model lenet --batch-size 2 --num-batches 1 --num-warmup-batches 0 "
                  "--threads 1 --devices cpu:1 --metrics-json " + cli.dir + "/b.json") == 0);
  auto b = nlohmann::json::parse(cli.Read("b.json"));
  CHECK(b["devices"] == "cpu:1");
  REQUIRE(b["device_names"].size() == 1);
  CHECK_THAT(b["device_names"][0].get<std::string>(), Catch::Contains("device:CPU:0"));
  CHECK_THAT(cli.Stdout(), Catch::Contains("device:CPU:0"));
  INFO(cli.Stderr());
  REQUIRE(cli.Run("train --model mlp --dataset synthetic --steps 2 --batch-size 8 --threads 1 "
                  "--devices cpu:2 --metrics-json " + cli.dir + "/t.json") == 0);
  auto t = nlohmann::json::parse(cli.Read("t.json"));
  CHECK(t["devices"] == "cpu:2");
  REQUIRE(t["device_names"].size() == 2);
  CHECK_THAT(t["device_names"][1].get<std::string>(), Catch::Contains("device:CPU:1"));
}

// `flowbench place` with a GPU in the device description (experiments/devices/h100.json) or
// --devices gpu:1: the default placer puts the model's compute ops on the GPU.
TEST_CASE("flowbench place puts LeNet's compute ops on the GPU of h100.json and of gpu:1",
          "[apps][devices]") {
  test::Cli cli;
  const std::string h100 = std::string(FB_SOURCE_DIR) + "/experiments/devices/h100.json";
  for (const std::string& devices : {"--device-config " + h100, std::string("--devices gpu:1")}) {
    INFO(devices);
    REQUIRE(cli.Run("place --model lenet --batch-size 8 --placers single " + devices +
                    " --metrics-json " + cli.dir + "/p.json") == 0);
    auto j = nlohmann::json::parse(cli.Read("p.json"));
    REQUIRE(j["devices"].size() == 2);
    CHECK_THAT(j["devices"][1]["name"].get<std::string>(), Catch::Contains("GPU:0"));
    // Which ops have GPU kernels depends on the build; the GPU gets some in every build with
    // CUDA (Conv2D, MatMul), and the CPU keeps the input Placeholders.
#ifdef FLOWBENCH_CUDA
    CHECK(j["devices"][1]["nodes"].get<int>() > 20);
#endif
    CHECK(j["devices"][0]["nodes"].get<int>() >= 2);
  }
}

}  // namespace
}  // namespace fb
