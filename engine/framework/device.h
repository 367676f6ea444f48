#pragma once
// Device: where kernels run (whitepaper section 3: "devices are the computational heart").
// A Device owns its Allocator, its threads and its ResourceMgr. The executor talks to devices
// only through this interface, so GPU devices (kernels/cuda) and devices of remote tasks (mpi/)
// plug in without executor changes. Device factories register per type and are listed by name.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/framework/allocator.h"
#include "engine/framework/device_name.h"
#include "engine/framework/resource_mgr.h"
#include "engine/framework/thread_pool.h"

namespace fb {

class OpKernel;
class AsyncOpKernel;
class OpKernelContext;

inline constexpr const char* DEVICE_CPU = "CPU";
inline constexpr const char* DEVICE_GPU = "GPU";

struct DeviceAttributes {
  std::string name;         // full name, "/job:localhost/replica:0/task:0/device:CPU:0"
  std::string device_type;  // "CPU", "GPU"
  int64_t memory_limit_bytes = 0;  // 0: unlimited
  std::string description;  // human-readable: "2 threads", "NVIDIA H100 80GB"
};

class Device {
 public:
  explicit Device(DeviceAttributes attrs);
  virtual ~Device() = default;
  const std::string& name() const { return attrs_.name; }
  const std::string& device_type() const { return attrs_.device_type; }
  const DeviceAttributes& attributes() const { return attrs_; }
  const ParsedDeviceName& parsed_name() const { return parsed_; }

  virtual Allocator* GetAllocator() = 0;
  // Threads for running nodes (inter-op) and for parallelism inside kernels (intra-op).
  virtual ThreadPool* inter_op_pool() = 0;
  virtual ThreadPool* intra_op_pool() = 0;
  ResourceMgr* resource_manager() { return &resource_mgr_; }

  // Runs a kernel on this device. The default calls the kernel directly; a GPU device
  // sets its stream first.
  virtual void Compute(OpKernel* kernel, OpKernelContext* ctx);
  virtual void ComputeAsync(AsyncOpKernel* kernel, OpKernelContext* ctx,
                            std::function<void()> done);
  // Waits for all queued work on the device (GPU streams); CPU returns at once.
  virtual Status Sync() { return Status::OK(); }
  // Copies between this device's memory and host memory. CPU devices share host memory,
  // so these return the tensor itself. Used by Send/Recv across devices (3.2.2).
  virtual StatusOr<Tensor> CopyToHost(const Tensor& t) { return t; }
  virtual StatusOr<Tensor> CopyFromHost(const Tensor& t) { return t; }

 private:
  DeviceAttributes attrs_;
  ParsedDeviceName parsed_;
  ResourceMgr resource_mgr_;
};

// A CPU device: host memory and `num_threads` inter-op and `num_threads` intra-op threads.
class CpuDevice : public Device {
 public:
  CpuDevice(const std::string& name, int num_threads, int64_t memory_limit_bytes = 0);
  Allocator* GetAllocator() override { return &allocator_; }
  ThreadPool* inter_op_pool() override { return &inter_op_; }
  ThreadPool* intra_op_pool() override { return &intra_op_; }

 private:
  CpuAllocator allocator_;
  ThreadPool inter_op_;
  ThreadPool intra_op_;
};

// Options for creating the local devices of a process.
struct DeviceOptions {
  int num_cpu_devices = 1;    // `--devices cpu:N`: the machine split into N CPU devices
  int threads_per_cpu = 0;    // 0: hardware threads / num_cpu_devices (at least 1)
  std::string job = "localhost";
  int task = 0;
};

// Creates devices of one type; GPU support registers a factory when a GPU is present.
class DeviceFactory {
 public:
  virtual ~DeviceFactory() = default;
  virtual Status CreateDevices(const DeviceOptions& options,
                               std::vector<std::unique_ptr<Device>>* devices) = 0;
  static void Register(const std::string& type, std::unique_ptr<DeviceFactory> factory);
  static std::vector<std::string> RegisteredTypes();
  // Creates the devices of every registered factory (CPU first).
  static Status AddDevices(const DeviceOptions& options,
                           std::vector<std::unique_ptr<Device>>* devices);
};

// Owns a set of devices, looked up by full or partial name. Shared by Sessions that share state.
class DeviceMgr {
 public:
  explicit DeviceMgr(std::vector<std::unique_ptr<Device>> devices);
  static StatusOr<std::shared_ptr<DeviceMgr>> CreateLocal(const DeviceOptions& options);
  const std::vector<Device*>& devices() const { return device_ptrs_; }
  // Exact full name, or a partial name that matches exactly one device. NotFound otherwise.
  StatusOr<Device*> LookupDevice(const std::string& name) const;
  Device* HostCpu() const;  // the first CPU device
  // Drops `container` on every device (ResetContainer, 4.7).
  void ClearContainer(const std::string& container);

 private:
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<Device*> device_ptrs_;
};

}  // namespace fb
