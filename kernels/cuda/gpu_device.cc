#include "kernels/cuda/gpu_device.h"

#include <cstdlib>
#include <map>

#include "engine/framework/device_plugin.h"
#include "kernels/cuda/cuda_status.h"

namespace fb::gpu {
namespace {

class CudaSubAllocator : public SubAllocator {
 public:
  explicit CudaSubAllocator(int ordinal) : ordinal_(ordinal) {}
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    if (cudaSetDevice(ordinal_) != cudaSuccess || cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky-free error so later calls do not see it
      return nullptr;
    }
    return p;
  }
  void Free(void* ptr, size_t bytes) override { cudaFree(ptr); }
  bool IsHostMemory() const override { return false; }

 private:
  int ordinal_;
};

class PinnedSubAllocator : public SubAllocator {
 public:
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return p;
  }
  void Free(void* ptr, size_t bytes) override { cudaFreeHost(ptr); }
  bool IsHostMemory() const override { return true; }
};

// Process-wide allocators (TensorFlow's GPUProcessState): one BFC pool per GPU, sized on first
// use, and one pinned host pool.
struct ProcessState {
  std::mutex mu;
  std::map<int, BfcAllocator*> device_allocators;
  BfcAllocator* pinned = nullptr;
};
ProcessState& State() {
  static auto* s = new ProcessState;
  return *s;
}

StatusOr<BfcAllocator*> DeviceAllocator(int ordinal, double fraction) {
  ProcessState& s = State();
  std::lock_guard<std::mutex> l(s.mu);
  auto it = s.device_allocators.find(ordinal);
  if (it != s.device_allocators.end()) return it->second;
  FB_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  size_t free_bytes = 0, total_bytes = 0;
  FB_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (fraction <= 0 || fraction > 1)
    return InvalidArgument("FLOWBENCH_GPU_MEMORY_FRACTION must be in (0, 1], got ", fraction);
  auto* a = new BfcAllocator(std::make_unique<CudaSubAllocator>(ordinal),
                             static_cast<size_t>(free_bytes * fraction),
                             "gpu_bfc_" + std::to_string(ordinal), size_t{64} << 20);
  s.device_allocators[ordinal] = a;
  return a;
}

BfcAllocator* PinnedAllocator() {
  ProcessState& s = State();
  std::lock_guard<std::mutex> l(s.mu);
  if (!s.pinned)
    s.pinned = new BfcAllocator(std::make_unique<PinnedSubAllocator>(), 0, "cuda_host_bfc",
                                size_t{16} << 20);
  return s.pinned;
}

// The GPU options of gpu_device.h, from the environment.
double MemoryFraction() {
  const char* v = std::getenv("FLOWBENCH_GPU_MEMORY_FRACTION");
  return v ? std::atof(v) : 0.9;
}
// TensorFlow's default since 2.4 (tf.config.experimental.enable_tensor_float_32_execution):
// TF32 allowed unless FLOWBENCH_GPU_ALLOW_TF32=0.
bool AllowTf32() {
  const char* v = std::getenv("FLOWBENCH_GPU_ALLOW_TF32");
  return !(v && std::string(v) == "0");
}
int RequestedGpus() {
  const char* v = std::getenv("FLOWBENCH_NUM_GPUS");
  return v ? std::atoi(v) : -1;
}

class GpuDeviceFactory : public DeviceFactory {
 public:
  Status CreateDevices(const DeviceOptions& o,
                       std::vector<std::unique_ptr<Device>>* devices) override {
    int n = VisibleGpuCount();
    if (RequestedGpus() >= 0) n = std::min(n, RequestedGpus());
    for (int i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(std::unique_ptr<GpuDevice> d, GpuDevice::Create(i, o));
      devices->push_back(std::move(d));
    }
    return Status::OK();
  }
};

// Runs when the program starts (flowbench_gpu_tests, flowbench-gpubench link these objects) or
// when libflowbench_cuda.so is loaded (engine/framework/device_plugin.h): either way GPU support
// is now present and the module must not be loaded (again).
struct RegisterGpu {
  RegisterGpu() {
    MarkDeviceSupportPresent(DEVICE_GPU);
    if (VisibleGpuCount() > 0)
      DeviceFactory::Register(DEVICE_GPU, std::make_unique<GpuDeviceFactory>());
  }
} register_gpu;

}  // namespace

int VisibleGpuCount() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

StatusOr<std::unique_ptr<GpuDevice>> GpuDevice::Create(int ordinal, const DeviceOptions& o) {
  ASSIGN_OR_RETURN(BfcAllocator * allocator, DeviceAllocator(ordinal, MemoryFraction()));
  cudaDeviceProp prop;
  FB_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, ordinal));
  std::string description = std::string(prop.name) + ", sm_" + std::to_string(prop.major) +
                            std::to_string(prop.minor) + ", " +
                            std::to_string(prop.totalGlobalMem >> 20) + " MiB";
  std::unique_ptr<GpuDevice> d(
      new GpuDevice(ordinal, o, allocator, PinnedAllocator(), description));
  RETURN_IF_ERROR(d->Init().WithPrefix(d->name() + ": "));
  return d;
}

GpuDevice::GpuDevice(int ordinal, const DeviceOptions& o, BfcAllocator* allocator,
                     Allocator* pinned, const std::string& description)
    : Device(DeviceAttributes{LocalDeviceName(DEVICE_GPU, ordinal, o.job, o.task), DEVICE_GPU,
                              static_cast<int64_t>(allocator->memory_limit_bytes()), description}),
      ordinal_(ordinal),
      allow_tf32_(AllowTf32()),
      allocator_(allocator),
      pinned_(pinned),
      inter_op_("gpu" + std::to_string(ordinal) + "/inter", 2),
      intra_op_("gpu" + std::to_string(ordinal) + "/intra", 1) {}

Status GpuDevice::Init() {
  FB_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
  FB_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
  FB_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&h2d_, cudaStreamNonBlocking));
  FB_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&d2h_, cudaStreamNonBlocking));
  FB_CUBLAS_RETURN_IF_ERROR(cublasCreate(&cublas_));
  FB_CUBLAS_RETURN_IF_ERROR(cublasSetStream(cublas_, compute_));
  FB_CUBLAS_RETURN_IF_ERROR(
      cublasSetMathMode(cublas_, allow_tf32_ ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  FB_CUDNN_RETURN_IF_ERROR(cudnnCreate(&cudnn_));
  FB_CUDNN_RETURN_IF_ERROR(cudnnSetStream(cudnn_, compute_));
  return Status::OK();
}

GpuDevice::~GpuDevice() {
  cudaSetDevice(ordinal_);
  Sync().ok();  // nothing queued may outlive the streams
  if (cudnn_) cudnnDestroy(cudnn_);
  if (cublas_) cublasDestroy(cublas_);
  for (cudaStream_t s : {compute_, h2d_, d2h_})
    if (s) cudaStreamDestroy(s);
}

void GpuDevice::Compute(OpKernel* kernel, OpKernelContext* ctx) {
  cudaSetDevice(ordinal_);
  Device::Compute(kernel, ctx);  // turns std::bad_alloc (host tensors, vectors) into a Status
  if (ctx->status().ok()) ctx->SetStatus(CudaStatus(cudaGetLastError(), "kernel launch"));
}

void GpuDevice::ComputeAsync(AsyncOpKernel* kernel, OpKernelContext* ctx,
                             std::function<void()> done) {
  cudaSetDevice(ordinal_);
  kernel->ComputeAsync(ctx, std::move(done));
}

Status GpuDevice::Sync() {
  for (cudaStream_t s : {compute_, h2d_, d2h_})
    FB_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s));
  return Status::OK();
}

Status GpuDevice::StreamWait(cudaStream_t waiter, cudaStream_t signaller) {
  cudaEvent_t e;
  FB_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  Status s = CudaStatus(cudaEventRecord(e, signaller), "cudaEventRecord");
  if (s.ok()) s = CudaStatus(cudaStreamWaitEvent(waiter, e, 0), "cudaStreamWaitEvent");
  cudaEventDestroy(e);  // released once the wait has happened
  return s;
}

StatusOr<Tensor> GpuDevice::CopyToHost(const Tensor& t) {
  if (t.allocator() == nullptr || t.allocator()->IsHostMemory()) return t;
  cudaSetDevice(ordinal_);
  ASSIGN_OR_RETURN(Tensor staging, AllocateTensor(t.dtype(), t.shape(), pinned_));
  ASSIGN_OR_RETURN(Tensor host, AllocateTensor(t.dtype(), t.shape(), DefaultCpuAllocator()));
  if (t.ByteSize() == 0) return host;
  RETURN_IF_ERROR(StreamWait(d2h_, compute_));
  FB_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(staging.raw_data(), t.raw_data(), t.ByteSize(),
                                          cudaMemcpyDeviceToHost, d2h_));
  FB_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(d2h_));
  std::memcpy(host.raw_data(), staging.raw_data(), t.ByteSize());
  return host;
}

StatusOr<Tensor> GpuDevice::CopyFromHost(const Tensor& t) {
  if (t.allocator() != nullptr && !t.allocator()->IsHostMemory()) return t;
  if (t.dtype() == DataType::kString)
    return InvalidArgument(name(), ": string tensors cannot be copied to a GPU");
  cudaSetDevice(ordinal_);
  ASSIGN_OR_RETURN(Tensor on_gpu, AllocateTensor(t.dtype(), t.shape(), allocator_));
  if (t.ByteSize() == 0) return on_gpu;
  Tensor staging = t;
  if (BaseAllocator(t) != pinned_) {
    ASSIGN_OR_RETURN(staging, AllocateTensor(t.dtype(), t.shape(), pinned_));
    std::memcpy(staging.raw_data(), t.raw_data(), t.ByteSize());
  }
  RETURN_IF_ERROR(StreamWait(h2d_, compute_));  // the destination may be memory freed by a kernel
  FB_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(on_gpu.raw_data(), staging.raw_data(), t.ByteSize(),
                                          cudaMemcpyHostToDevice, h2d_));
  // The staging buffer is released once the copy has run (no CUDA call inside the callback).
  auto* keep = new Tensor(std::move(staging));
  FB_CUDA_RETURN_IF_ERROR(cudaLaunchHostFunc(
      h2d_, [](void* p) { delete static_cast<Tensor*>(p); }, keep));
  RETURN_IF_ERROR(StreamWait(compute_, h2d_));
  return on_gpu;
}

Status GpuDevice::ThenExecute(std::function<void()> fn) {
  struct Callback {
    ThreadPool* pool;
    std::function<void()> fn;
  };
  auto* cb = new Callback{&inter_op_, std::move(fn)};
  cudaError_t e = cudaLaunchHostFunc(
      compute_,
      [](void* p) {
        auto* c = static_cast<Callback*>(p);
        c->pool->Schedule(std::move(c->fn));
        delete c;
      },
      cb);
  if (e != cudaSuccess) delete cb;
  return CudaStatus(e, "cudaLaunchHostFunc");
}

GpuDevice* GpuOf(OpKernelContext* ctx) {
  auto* d = dynamic_cast<GpuDevice*>(ctx->device());
  FB_CHECK(d != nullptr) << "GPU kernel run on " << ctx->device()->name();
  return d;
}

}  // namespace fb::gpu
