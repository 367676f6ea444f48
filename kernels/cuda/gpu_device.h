#pragma once
// GpuDevice: one CUDA GPU as a flowbench Device (whitepaper section 3; TensorFlow's
// BaseGPUDevice). Memory comes from a process-wide BfcAllocator per GPU (a pool of cudaMalloc
// regions, limited to a fraction of the memory free at start, see below); host
// staging buffers come from a process-wide pinned (cudaHostAlloc) BfcAllocator. Allocators are
// never destroyed, so tensors may outlive the Session that made them (as TensorFlow's do).
//
// Streams: kernels are enqueued on one compute stream and return at once (executor threads never
// wait for the GPU); host-to-device and device-to-host copies use their own streams, ordered
// against the compute stream with CUDA events in both directions (a copy waits for the work queued
// before it, and the compute stream waits for the copy), so the stream order makes it safe to
// reuse freed memory. CopyToHost (Send, Fetch) waits for its own copy only.
//
// The device registers through DeviceFactory ("GPU") only when CUDA reports a GPU; on a machine
// without one (or without a driver) no GPU device exists and nothing CUDA runs. Options come from
// the environment (DeviceOptions has no GPU fields yet): FLOWBENCH_NUM_GPUS (default: all visible),
// FLOWBENCH_GPU_MEMORY_FRACTION (default 0.9 of the free memory at start, per GPU's pool) and
// FLOWBENCH_GPU_ALLOW_TF32 (default on, as TensorFlow >= 2.4: float convolutions and GEMMs may use
// TF32 tensor cores on sm_80 and later; =0 keeps full float precision). Thread-safe:
// cuBLAS and cuDNN calls go through one handle each, serialised by library_mu().
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <functional>
#include <memory>
#include <mutex>

#include "engine/framework/bfc_allocator.h"
#include "engine/framework/device.h"
#include "engine/framework/op_kernel.h"
#include "engine/framework/tensor_allocate.h"

namespace fb::gpu {

// Number of GPUs CUDA can use; 0 when there is no GPU or no driver.
int VisibleGpuCount();

class GpuDevice : public Device {
 public:
  // Internal/ResourceExhausted when the CUDA context, streams or library handles cannot be made;
  // InvalidArgument for a bad FLOWBENCH_GPU_MEMORY_FRACTION.
  static StatusOr<std::unique_ptr<GpuDevice>> Create(int ordinal, const DeviceOptions& options);
  ~GpuDevice() override;

  Allocator* GetAllocator() override { return allocator_; }
  ThreadPool* inter_op_pool() override { return &inter_op_; }
  ThreadPool* intra_op_pool() override { return &intra_op_; }
  // Makes this GPU current on the calling thread, runs the kernel (which enqueues work on the
  // compute stream) and turns a failed launch into the kernel's Status.
  void Compute(OpKernel* kernel, OpKernelContext* ctx) override;
  void ComputeAsync(AsyncOpKernel* kernel, OpKernelContext* ctx,
                    std::function<void()> done) override;
  Status Sync() override;
  // Device memory -> a host tensor (CPU allocator) through a pinned staging buffer. Host tensors
  // are returned as they are.
  StatusOr<Tensor> CopyToHost(const Tensor& t) override;
  // Host memory -> a new tensor in this GPU's memory through a pinned staging buffer; the copy is
  // queued on the host-to-device stream and the compute stream waits for it. Tensors already in
  // GPU memory are returned as they are. InvalidArgument for string tensors.
  StatusOr<Tensor> CopyFromHost(const Tensor& t) override;

  int ordinal() const { return ordinal_; }
  cudaStream_t compute_stream() const { return compute_; }
  BfcAllocator* bfc_allocator() const { return allocator_; }
  Allocator* pinned_allocator() const { return pinned_; }
  bool allow_tf32() const { return allow_tf32_; }
  // cuBLAS/cuDNN handles bound to the compute stream; hold library_mu() while using them.
  cublasHandle_t cublas() const { return cublas_; }
  cudnnHandle_t cudnn() const { return cudnn_; }
  std::mutex* library_mu() { return &library_mu_; }
  // Runs `fn` on the inter-op pool once everything queued on the compute stream so far has run
  // (cudaLaunchHostFunc; `fn` may call CUDA, the host function itself does not).
  Status ThenExecute(std::function<void()> fn);

 private:
  GpuDevice(int ordinal, const DeviceOptions& options, BfcAllocator* allocator,
            Allocator* pinned, const std::string& description);
  Status Init();
  // Makes `waiter` wait for the work queued on `signaller` so far.
  Status StreamWait(cudaStream_t waiter, cudaStream_t signaller);

  const int ordinal_;
  const bool allow_tf32_;
  BfcAllocator* allocator_;  // process-wide, never destroyed
  Allocator* pinned_;        // process-wide, never destroyed
  ThreadPool inter_op_;
  ThreadPool intra_op_;
  cudaStream_t compute_ = nullptr, h2d_ = nullptr, d2h_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  std::mutex library_mu_;
};

// The GpuDevice a GPU kernel runs on (FB_CHECKs that the kernel was registered for DEVICE_GPU).
GpuDevice* GpuOf(OpKernelContext* ctx);

}  // namespace fb::gpu
