#include "engine/framework/device.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>

#include "engine/framework/op_kernel.h"

namespace fb {

Device::Device(DeviceAttributes attrs) : attrs_(std::move(attrs)) {
  auto parsed = ParseDeviceName(attrs_.name);
  FB_CHECK(parsed.ok()) << parsed.status();
  parsed_ = *parsed;
}

void Device::Compute(OpKernel* kernel, OpKernelContext* ctx) {
  // Tensors a kernel constructs itself, DeepCopy, and std::vectors sized from its inputs throw
  // when memory runs out: that is ResourceExhausted for this node, never an abort.
  try {
    kernel->Compute(ctx);
  } catch (const std::bad_alloc& e) {
    ctx->CtxFailure(ResourceExhausted("OOM in kernel '", kernel->name(), "' (", e.what(), ")"));
  } catch (const std::length_error& e) {
    ctx->CtxFailure(ResourceExhausted("OOM in kernel '", kernel->name(), "' (", e.what(), ")"));
  }
}

void Device::ComputeAsync(AsyncOpKernel* kernel, OpKernelContext* ctx,
                          std::function<void()> done) {
  kernel->ComputeAsync(ctx, std::move(done));
}

CpuDevice::CpuDevice(const std::string& name, int num_threads, int64_t memory_limit_bytes)
    : Device(DeviceAttributes{name, DEVICE_CPU, memory_limit_bytes,
                              std::to_string(num_threads) + " threads"}),
      allocator_(std::make_shared<CpuAllocator>(name)),
      inter_op_(name + "/inter", num_threads),
      intra_op_(name + "/intra", num_threads) {}

namespace {
std::mutex& FactoryMu() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, std::unique_ptr<DeviceFactory>>& Factories() {
  static auto* f = new std::map<std::string, std::unique_ptr<DeviceFactory>>;
  return *f;
}

class CpuDeviceFactory : public DeviceFactory {
 public:
  Status CreateDevices(const DeviceOptions& o,
                       std::vector<std::unique_ptr<Device>>* devices) override {
    if (o.num_cpu_devices < 1)
      return InvalidArgument("need at least 1 CPU device, got ", o.num_cpu_devices);
    int hw = std::max(1u, std::thread::hardware_concurrency());
    int threads = o.threads_per_cpu > 0 ? o.threads_per_cpu : std::max(1, hw / o.num_cpu_devices);
    for (int i = 0; i < o.num_cpu_devices; ++i)
      devices->push_back(
          std::make_unique<CpuDevice>(LocalDeviceName(DEVICE_CPU, i, o.job, o.task), threads));
    return Status::OK();
  }
};
struct RegisterCpu {
  RegisterCpu() { DeviceFactory::Register(DEVICE_CPU, std::make_unique<CpuDeviceFactory>()); }
} register_cpu;
}  // namespace

void DeviceFactory::Register(const std::string& type, std::unique_ptr<DeviceFactory> factory) {
  std::lock_guard<std::mutex> l(FactoryMu());
  Factories()[type] = std::move(factory);
}

std::vector<std::string> DeviceFactory::RegisteredTypes() {
  std::lock_guard<std::mutex> l(FactoryMu());
  std::vector<std::string> v;
  for (const auto& [t, f] : Factories()) v.push_back(t);
  return v;
}

Status DeviceFactory::AddDevices(const DeviceOptions& options,
                                 std::vector<std::unique_ptr<Device>>* devices) {
  std::lock_guard<std::mutex> l(FactoryMu());
  auto& f = Factories();
  RETURN_IF_ERROR(f.at(DEVICE_CPU)->CreateDevices(options, devices));
  for (const auto& [type, factory] : f)
    if (type != DEVICE_CPU) RETURN_IF_ERROR(factory->CreateDevices(options, devices));
  return Status::OK();
}

DeviceMgr::DeviceMgr(std::vector<std::unique_ptr<Device>> devices) : devices_(std::move(devices)) {
  for (auto& d : devices_) device_ptrs_.push_back(d.get());
}

StatusOr<std::shared_ptr<DeviceMgr>> DeviceMgr::CreateLocal(const DeviceOptions& options) {
  std::vector<std::unique_ptr<Device>> devices;
  RETURN_IF_ERROR(DeviceFactory::AddDevices(options, &devices));
  return std::make_shared<DeviceMgr>(std::move(devices));
}

StatusOr<Device*> DeviceMgr::LookupDevice(const std::string& name) const {
  for (Device* d : device_ptrs_)
    if (d->name() == name) return d;
  ASSIGN_OR_RETURN(ParsedDeviceName want, ParseDeviceName(name));
  Device* found = nullptr;
  for (Device* d : device_ptrs_) {
    if (!DeviceNameMatches(d->parsed_name(), want)) continue;
    if (found) return NotFound("device name '", name, "' matches more than one device");
    found = d;
  }
  if (!found) return NotFound("no device matches '", name, "'");
  return found;
}

Device* DeviceMgr::HostCpu() const {
  for (Device* d : device_ptrs_)
    if (d->device_type() == DEVICE_CPU) return d;
  return device_ptrs_.empty() ? nullptr : device_ptrs_[0];
}

void DeviceMgr::ClearContainer(const std::string& container) {
  for (Device* d : device_ptrs_) d->resource_manager()->Cleanup(container);
}

}  // namespace fb
