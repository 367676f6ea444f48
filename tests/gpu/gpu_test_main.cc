// Main of flowbench_gpu_tests: the GPU kernels against the CPU kernels (tests/gpu/*_test.cc).
// Without a GPU it runs nothing, says so, and exits 77, which CTest reports as skipped
// (SKIP_RETURN_CODE in cmake/cuda.cmake): GPU tests are never reported as passed without a GPU.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>

#include "kernels/cuda/gpu_device.h"

int main(int argc, char** argv) {
  if (fb::gpu::VisibleGpuCount() == 0) {
    std::printf("flowbench_gpu_tests: no GPU visible (cudaGetDeviceCount found none): SKIPPED\n");
    return 77;
  }
  // The tests compare against the CPU at float tolerances: full FP32 unless the caller says
  // otherwise (TF32 is the devices' default, as in TensorFlow).
  setenv("FLOWBENCH_GPU_ALLOW_TF32", "0", /*overwrite=*/0);
  return Catch::Session().run(argc, argv);
}
