// GPU support as a module loaded on first use (engine/framework/device_plugin.h): a CPU-only run
// of the flowbench CLI maps no CUDA library (checked through FLOWBENCH_PRINT_LOADED_LIBRARIES,
// apps/main.cc), asking for a GPU loads libflowbench_cuda.so (on this GPU-less machine the CUDA
// runtime then finds no device and the usual "no GPU visible" error follows), a module that
// cannot be loaded is refused naming the flag and quoting dlerror, and GPU kernel lookups load
// the module on demand. Kernel registrations after startup are safe next to concurrent lookups.
#include <sys/wait.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "engine/framework/device.h"
#include "engine/framework/device_plugin.h"
#include "engine/framework/op_def.h"
#include "engine/framework/op_kernel.h"
#include "tests/apps/cli.h"

namespace fb {
namespace {

// Runs `env ENV flowbench ARGS` with the loaded-library listing on; stdout and stderr in the
// Cli's directory. Returns the exit status.
int RunWithEnv(test::Cli& cli, const std::string& env, const std::string& args) {
  const std::string cmd = "env FLOWBENCH_PRINT_LOADED_LIBRARIES=1 " + env + " " +
                          std::string(FB_BINARY_DIR) + "/flowbench " + args + " > " + cli.dir +
                          "/out.txt 2> " + cli.dir + "/err.txt";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

// The "flowbench: loaded <path>" lines of apps/main.cc whose path contains `name`.
bool Loaded(const std::string& err, const std::string& name) {
  size_t pos = 0;
  while ((pos = err.find("flowbench: loaded ", pos)) != std::string::npos) {
    size_t end = err.find('\n', pos);
    if (err.substr(pos, end - pos).find(name) != std::string::npos) return true;
    pos = end;
  }
  return false;
}

const char* const kCudaLibraries[] = {"libflowbench_cuda", "libcublas", "libcudnn", "libnccl",
                                      "libcudart", "libcuda.so"};

TEST_CASE("A CPU-only flowbench benchmark run maps no CUDA library", "[devices][gpu_module]") {
  test::Cli cli;
  const int rc = RunWithEnv(cli, "", "benchmark --model lenet --batch-size 8 --num-batches 2 "
                                     "--num-warmup-batches 1 --threads 1 --devices cpu:1");
  const std::string err = cli.Stderr();
  INFO(err);
  REQUIRE(rc == 0);
  // The listing ran (so an empty one cannot pass): the C library is always there.
  REQUIRE(Loaded(err, "libc.so"));
  for (const char* lib : kCudaLibraries) {
    INFO(lib);
    CHECK_FALSE(Loaded(err, lib));
  }
}

TEST_CASE("flowbench --devices gpu:1 loads the GPU module and fails only for want of a GPU",
          "[devices][gpu_module]") {
  test::Cli cli;
  const int rc = RunWithEnv(cli, "", "benchmark --model lenet --batch-size 2 --num-batches 1 "
                                     "--num-warmup-batches 0 --threads 1 --devices gpu:1");
  const std::string err = cli.Stderr();
  INFO(err);
  CHECK_THAT(err, !Catch::Contains("GPU support not available"));
#ifdef FLOWBENCH_CUDA
  CHECK(Loaded(err, "libflowbench_cuda.so"));
  CHECK(Loaded(err, "libcublas"));
  if (rc == 0) return;  // a machine with a GPU
#else
  CHECK_FALSE(Loaded(err, "libflowbench_cuda"));
#endif
  CHECK(rc != 0);
  CHECK(rc < 128);  // an error, not a signal
  CHECK_THAT(err, Catch::Contains("--devices gpu:1: no GPU visible"));
}

#ifdef FLOWBENCH_CUDA
TEST_CASE("A GPU module that cannot be loaded is refused naming the flag and quoting dlerror",
          "[devices][gpu_module]") {
  test::Cli cli;
  const std::string missing = cli.dir + "/no_such_libflowbench_cuda.so";
  const int rc = RunWithEnv(cli, "FLOWBENCH_GPU_MODULE=" + missing,
                            "benchmark --model lenet --batch-size 2 --num-batches 1 --threads 1 "
                            "--devices gpu:1");
  const std::string err = cli.Stderr();
  INFO(err);
  CHECK(rc != 0);
  CHECK(rc < 128);
  CHECK_THAT(err, Catch::Contains("--devices gpu:1: GPU support not available: ") &&
                      Catch::Contains(missing) &&
                      Catch::Contains("cannot open shared object file"));
  CHECK_FALSE(Loaded(err, "libcublas"));
}

TEST_CASE("flowbench ops lists the GPU kernels of the module it loads", "[devices][gpu_module]") {
  test::Cli cli;
  REQUIRE(RunWithEnv(cli, "", "ops") == 0);
  const std::string out = cli.Stdout();
  // MatMul has CPU and GPU kernels; NcclAllReduce is defined by the module.
  const size_t matmul = out.find("\nMatMul ");
  REQUIRE(matmul != std::string::npos);
  const std::string line = out.substr(matmul + 1, out.find('\n', matmul + 1) - matmul - 1);
  CHECK_THAT(line, Catch::Contains(" CPU,GPU "));
  CHECK_THAT(out, Catch::Contains("NcclAllReduce"));
  CHECK(Loaded(cli.Stderr(), "libflowbench_cuda.so"));
}
#endif  // FLOWBENCH_CUDA

NodeDef FloatMatMul() {
  return NodeDef{"m", "MatMul", {"a", "b"}, "", {{"T", DataType::kFloat}}};
}

TEST_CASE("A GPU kernel lookup loads GPU support on demand", "[devices][gpu_module]") {
  const bool found = KernelRegistry::Global()->HasKernel(DEVICE_GPU, FloatMatMul());
  Status s = LoadDeviceSupport(DEVICE_GPU);
#ifdef FLOWBENCH_CUDA
  INFO(s.ToString());
  CHECK(found);
  REQUIRE(s.ok());
  CHECK(DeviceSupportPresent(DEVICE_GPU));
  CHECK(LoadDeviceSupport(DEVICE_GPU).ok());  // once loaded, a no-op
  CHECK(OpRegistry::Global()->LookUp("NcclAllReduce").ok());
  const std::vector<std::string> libs = LoadedSharedObjects();
  CHECK(std::count_if(libs.begin(), libs.end(), [](const std::string& l) {
          return l.find("libflowbench_cuda.so") != std::string::npos;
        }) == 1);
#else
  CHECK_FALSE(found);
  CHECK(s.code() == Code::kUnavailable);
  CHECK_THAT(s.message(), Catch::Contains("GPU support not available: flowbench was built "
                                          "without CUDA"));
  CHECK_FALSE(DeviceSupportPresent(DEVICE_GPU));
#endif
  CHECK(LoadDeviceSupport(DEVICE_CPU).ok());
}

// Registrations after startup (a module's static initializers) next to lookups on other threads:
// without the registry's lock the multimap is read while it rebalances. A plain build rarely
// crashes on that race (it passed 5 of 5 runs with the lock removed): the test is for race
// detectors, and checks that every late registration is visible.
TEST_CASE("Kernels registered while other threads look kernels up are all found",
          "[devices][gpu_module]") {
  const std::string type = "TEST_LATE_REGISTRATION";
  const std::string op = "_TestLateRegistration";
  constexpr int kKernels = 2000;
  std::atomic<bool> done{false};
  std::atomic<int64_t> lookups{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      NodeDef n{"n", op, {}, "", {{"T", DataType::kFloat}}};
      while (!done.load()) {
        KernelRegistry::Global()->HasKernel(type, n);
        KernelRegistry::Global()->TypesForOp(op, type);
        KernelRegistry::Global()->DeviceTypesForOp(op);
        lookups.fetch_add(1);
      }
    });
  }
  while (lookups.load() < 2) std::this_thread::yield();  // the readers are running
  for (int i = 0; i < kKernels; ++i) {
    KernelRegistry::Global()->Register(
        KernelDefBuilder(op.c_str()).Device(type.c_str()).TypeConstraint(
            "T", i % 2 ? DataType::kFloat : DataType::kDouble),
        [](OpKernelConstruction*) -> std::unique_ptr<OpKernel> { return nullptr; });
  }
  done = true;
  for (std::thread& t : readers) t.join();
  const NodeDef n{"n", op, {}, "", {{"T", DataType::kFloat}}};
  CHECK(KernelRegistry::Global()->HasKernel(type, n));
  CHECK(KernelRegistry::Global()->TypesForOp(op, type).size() == 2);
}

}  // namespace
}  // namespace fb
