#include "engine/runtime/local_devices.h"

#include <algorithm>

#include "engine/framework/device_plugin.h"
#include "engine/placement/device_config.h"

namespace fb {

StatusOr<std::shared_ptr<DeviceMgr>> CreateDevicesForFlag(const std::string& spec, int threads) {
  ASSIGN_OR_RETURN(DevicesFlag flag, ParseDevicesFlag(spec));
  if (threads < 1) return InvalidArgument("threads must be >= 1, got ", threads);
  DeviceOptions options;
  RETURN_IF_ERROR(ApplyDevicesFlag(spec, &options));
  options.threads_per_cpu = std::max(1, threads / options.num_cpu_devices);
  std::vector<std::unique_ptr<Device>> all, kept;
  if (flag.type == "CPU") {  // the CPU factory alone: no GPU context is made for a CPU run
    for (int i = 0; i < options.num_cpu_devices; ++i) {
      kept.push_back(std::make_unique<CpuDevice>(LocalDeviceName(DEVICE_CPU, i, options.job,
                                                                 options.task),
                                                 options.threads_per_cpu));
    }
    return std::make_shared<DeviceMgr>(std::move(kept));
  }
  // The GPU module (device_plugin.h) registers the GPU factory when a GPU is visible. A build
  // without CUDA falls through to the "no GPU visible" error below.
  if (DeviceSupportBuilt(DEVICE_GPU))
    RETURN_IF_ERROR(LoadDeviceSupport(DEVICE_GPU).WithPrefix("--devices " + spec + ": "));
  RETURN_IF_ERROR(DeviceFactory::AddDevices(options, &all));
  int gpus = 0;
  for (std::unique_ptr<Device>& d : all) {
    if (d->device_type() == DEVICE_CPU) {
      kept.push_back(std::move(d));
    } else if (d->device_type() == DEVICE_GPU && gpus < flag.count) {
      kept.push_back(std::move(d));
      ++gpus;
    }
  }
  if (gpus == 0) {
    return FailedPrecondition("--devices ", spec,
                              ": no GPU visible (cudaGetDeviceCount found none, or flowbench was "
                              "built without CUDA)");
  }
  if (gpus < flag.count) {
    return FailedPrecondition("--devices ", spec, ": ", flag.count, " GPUs requested but only ",
                              gpus, " visible");
  }
  return std::make_shared<DeviceMgr>(std::move(kept));
}

std::vector<std::string> DescribeDevicesForMetrics(const DeviceMgr& mgr) {
  std::vector<std::string> out;
  for (Device* d : mgr.devices()) {
    const std::string& desc = d->attributes().description;
    out.push_back(desc.empty() ? d->name() : d->name() + " (" + desc + ")");
  }
  return out;
}

}  // namespace fb
