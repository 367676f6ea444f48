// SGEMM and HGEMM on one GPU: flowbench next to cuBLAS called directly, in the same process.
//   BM_SgemmFlowbench/N  the MatMul kernel (float, TF32 off) run through GpuDevice::Compute: kernel
//                        registry, output allocated from the BFC pool, cuBLAS on the compute stream
//   BM_SgemmCublas/N     cublasSgemm on a plain stream into a preallocated output (TF32 off)
//   BM_HgemmFlowbench/N  gpu::Gemm<__half> (the wrapper the kernels use; fp16 in/out, fp32 accumulate)
//   BM_HgemmCublas/N     cublasGemmEx with the same types
// Each iteration enqueues one N x N x N product and waits for the stream, so both sides pay the
// same synchronisation. Counter TFLOP/s = 2 N^3 / time. Without a GPU it prints SKIPPED and exits
// 77. Run: build/flowbench-gpubench --benchmark_format=json (scripts/gpu-check --run does).
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <cstdio>
#include <cstdlib>

#include "engine/framework/op_kernel.h"
#include "kernels/cuda/cublas_gemm.h"
#include "kernels/cuda/gpu_device.h"

namespace fb::gpu {
namespace {

GpuDevice* Gpu() {
  // FP32 like the cuBLAS baseline (TF32 is the device's default), unless the caller sets it.
  setenv("FLOWBENCH_GPU_ALLOW_TF32", "0", /*overwrite=*/0);
  static GpuDevice* d = GpuDevice::Create(0, DeviceOptions())->release();
  return d;
}

void SetFlops(benchmark::State& state, int64_t n) {
  state.counters["TFLOP/s"] = benchmark::Counter(2.0 * n * n * n * 1e-12,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

// Device memory for a, b and c of n x n elements of T (random-ish contents do not matter).
template <typename T>
struct Buffers {
  explicit Buffers(int64_t n) : bytes(sizeof(T) * n * n) {
    for (void** p : {&a, &b, &c}) cudaMalloc(p, bytes);
    cudaMemset(a, 0, bytes);
    cudaMemset(b, 0, bytes);
  }
  ~Buffers() {
    for (void* p : {a, b, c}) cudaFree(p);
  }
  size_t bytes;
  void *a = nullptr, *b = nullptr, *c = nullptr;
};

void BM_SgemmFlowbench(benchmark::State& state) {
  const int64_t n = state.range(0);
  GpuDevice* gpu = Gpu();
  NodeDef node;
  node.name = "mm";
  node.op = "MatMul";
  node.inputs = {"a", "b"};
  node.attrs["T"] = DataType::kFloat;
  node.attrs["transpose_a"] = false;
  node.attrs["transpose_b"] = false;
  auto kernel = KernelRegistry::Global()->CreateKernel(gpu, node);
  if (!kernel.ok()) return state.SkipWithError(kernel.status().ToString().c_str());
  auto a = AllocateTensor(DataType::kFloat, {n, n}, gpu->GetAllocator());
  auto b = AllocateTensor(DataType::kFloat, {n, n}, gpu->GetAllocator());
  if (!a.ok() || !b.ok()) return state.SkipWithError("out of GPU memory");
  std::vector<TensorValue> inputs = {{*a, nullptr}, {*b, nullptr}};
  for (auto _ : state) {
    OpKernelContext::Params params;
    params.device = gpu;
    params.kernel = kernel->get();
    params.inputs = &inputs;
    OpKernelContext ctx(&params);
    gpu->Compute(kernel->get(), &ctx);
    if (!ctx.status().ok()) return state.SkipWithError(ctx.status().ToString().c_str());
    cudaStreamSynchronize(gpu->compute_stream());
  }
  SetFlops(state, n);
}

void BM_SgemmCublas(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Buffers<float> buf(n);
  cublasHandle_t h;
  cudaStream_t s;
  cublasCreate(&h);
  cudaStreamCreate(&s);
  cublasSetStream(h, s);
  cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
  const float one = 1, zero = 0;
  for (auto _ : state) {
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, static_cast<float*>(buf.b), n,
                static_cast<float*>(buf.a), n, &zero, static_cast<float*>(buf.c), n);
    cudaStreamSynchronize(s);
  }
  SetFlops(state, n);
  cublasDestroy(h);
  cudaStreamDestroy(s);
}

void BM_HgemmFlowbench(benchmark::State& state) {
  const int64_t n = state.range(0);
  Buffers<__half> buf(n);
  GpuDevice* gpu = Gpu();
  GemmDims d{n, n, n};
  for (auto _ : state) {
    Status st = Gemm<__half>(gpu, d, false, false, static_cast<__half*>(buf.a),
                             static_cast<__half*>(buf.b), static_cast<__half*>(buf.c));
    if (!st.ok()) return state.SkipWithError(st.ToString().c_str());
    cudaStreamSynchronize(gpu->compute_stream());
  }
  SetFlops(state, n);
}

void BM_HgemmCublas(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Buffers<__half> buf(n);
  cublasHandle_t h;
  cudaStream_t s;
  cublasCreate(&h);
  cudaStreamCreate(&s);
  cublasSetStream(h, s);
  const float one = 1, zero = 0;
  for (auto _ : state) {
    cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, buf.b, CUDA_R_16F, n, buf.a,
                 CUDA_R_16F, n, &zero, buf.c, CUDA_R_16F, n, CUBLAS_COMPUTE_32F,
                 CUBLAS_GEMM_DEFAULT);
    cudaStreamSynchronize(s);
  }
  SetFlops(state, n);
  cublasDestroy(h);
  cudaStreamDestroy(s);
}

#define FB_GEMM_SIZES ->Arg(512)->Arg(1024)->Arg(2048)->Arg(4096)->Arg(8192)->UseRealTime()
BENCHMARK(BM_SgemmFlowbench) FB_GEMM_SIZES;
BENCHMARK(BM_SgemmCublas) FB_GEMM_SIZES;
BENCHMARK(BM_HgemmFlowbench) FB_GEMM_SIZES;
BENCHMARK(BM_HgemmCublas) FB_GEMM_SIZES;
#undef FB_GEMM_SIZES

}  // namespace
}  // namespace fb::gpu

int main(int argc, char** argv) {
  if (fb::gpu::VisibleGpuCount() == 0) {
    std::printf("flowbench-gpubench: no GPU visible: SKIPPED\n");
    return 77;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
