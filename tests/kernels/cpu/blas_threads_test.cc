// The process-wide OpenBLAS thread count (kernels/cpu/matmul.h): one thread by default, so that
// GEMMs run on the executor's threads instead of waiting for OpenBLAS workers that a loaded
// machine deschedules (issue 16), and SetBlasThreads changes it.
#include <cblas.h>

#include <cstdlib>

#include <catch2/catch.hpp>

#include "kernels/cpu/matmul.h"

namespace fb {
namespace {

TEST_CASE("OpenBLAS runs on the calling thread unless OPENBLAS_NUM_THREADS says otherwise",
          "[math][matmul][blas_threads]") {
  const char* env = std::getenv("OPENBLAS_NUM_THREADS");
  const int want = env == nullptr ? 1 : std::max(1, std::atoi(env));
  // Other tests may have changed it: the default is what a fresh process gets, so only the
  // first look counts; SetBlasThreads restores it below.
  static const int at_start = openblas_get_num_threads();
  CHECK(at_start == std::min(want, openblas_get_num_procs()));
  SetBlasThreads(2);
  CHECK(openblas_get_num_threads() == std::min(2, openblas_get_num_procs()));
  SetBlasThreads(0);  // clamped to 1
  CHECK(openblas_get_num_threads() == 1);
  SetBlasThreads(at_start);
}

}  // namespace
}  // namespace fb
