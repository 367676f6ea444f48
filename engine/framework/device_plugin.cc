#include "engine/framework/device_plugin.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "engine/framework/device.h"

// FB_GPU_MODULE_NAME ("libflowbench_cuda.so") is defined for this file alone by cmake/cuda.cmake
// when flowbench is built with CUDA.

namespace fb {
namespace {

struct GpuSupportState {
  std::atomic<bool> present{false};
  std::mutex mu;         // held while loading: other threads wait for the kernels
  bool attempted = false;
  bool warned = false;
  Status status;         // of the one attempt
};

GpuSupportState& Gpu() {
  static auto* s = new GpuSupportState;
  return *s;
}

// Set on the thread running dlopen, whose module initializers may look up GPU kernels.
thread_local bool tls_loading = false;

bool IsGpu(const std::string& device_type) { return device_type == DEVICE_GPU; }

#ifdef FB_GPU_MODULE_NAME
// The directory of the running executable, with a trailing '/'; empty when unknown.
std::string ExecutableDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  std::string path(buf, static_cast<size_t>(n));
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// The module's path: $FLOWBENCH_GPU_MODULE, else next to the executable when it is there, else
// the bare name for the dynamic linker's search (LD_LIBRARY_PATH, RUNPATH, system paths).
std::string GpuModulePath() {
  if (const char* env = std::getenv("FLOWBENCH_GPU_MODULE"); env && *env) return env;
  std::string dir = ExecutableDir();
  if (!dir.empty() && access((dir + FB_GPU_MODULE_NAME).c_str(), F_OK) == 0)
    return dir + FB_GPU_MODULE_NAME;
  return FB_GPU_MODULE_NAME;
}

Status OpenGpuModule() {
  const std::string path = GpuModulePath();
  // RTLD_NOW: an engine symbol the program does not export fails here, not at the first call.
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) != nullptr) return Status::OK();
  const char* err = dlerror();
  return Unavailable("GPU support not available: ", err ? err : "dlopen failed", " (module '",
                     path, "'; FLOWBENCH_GPU_MODULE sets its path, by default ",
                     FB_GPU_MODULE_NAME, " next to the executable)");
}
#endif  // FB_GPU_MODULE_NAME

}  // namespace

bool DeviceSupportBuilt(const std::string& device_type) {
  if (!IsGpu(device_type)) return true;
#ifdef FB_GPU_MODULE_NAME
  return true;
#else
  return false;
#endif
}

bool DeviceSupportPresent(const std::string& device_type) {
  return !IsGpu(device_type) || Gpu().present.load(std::memory_order_acquire);
}

// While the module loads, its initializers call this before all of its kernels are registered:
// other threads must not see "present" until dlopen returns, so the loader sets it then.
void MarkDeviceSupportPresent(const std::string& device_type) {
  if (IsGpu(device_type) && !tls_loading) Gpu().present.store(true, std::memory_order_release);
}

Status LoadDeviceSupport(const std::string& device_type) {
  if (DeviceSupportPresent(device_type) || tls_loading) return Status::OK();
  if (!DeviceSupportBuilt(device_type))
    return Unavailable("GPU support not available: flowbench was built without CUDA "
                       "(FLOWBENCH_CUDA=OFF, or nvcc was not found)");
#ifdef FB_GPU_MODULE_NAME
  GpuSupportState& s = Gpu();
  std::lock_guard<std::mutex> l(s.mu);
  if (DeviceSupportPresent(device_type)) return Status::OK();
  if (s.attempted) return s.status;
  s.attempted = true;
  tls_loading = true;
  s.status = OpenGpuModule();
  tls_loading = false;
  if (s.status.ok()) s.present.store(true, std::memory_order_release);
  return s.status;
#else
  return Status::OK();  // unreachable: DeviceSupportBuilt is false
#endif
}

void LoadDeviceSupportForLookup(const std::string& device_type) {
  if (DeviceSupportPresent(device_type) || !DeviceSupportBuilt(device_type)) return;
  Status s = LoadDeviceSupport(device_type);
  if (s.ok()) return;
  GpuSupportState& g = Gpu();
  std::lock_guard<std::mutex> l(g.mu);
  if (g.warned) return;
  g.warned = true;
  auto log = spdlog::get("flowbench.devices");
  if (!log) log = spdlog::stderr_color_mt("flowbench.devices");
  log->warn("{}; no {} kernels are registered", s.message(), device_type);
}

std::vector<std::string> LoadedSharedObjects() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        if (info->dlpi_name && info->dlpi_name[0])
          static_cast<std::vector<std::string>*>(out)->push_back(info->dlpi_name);
        return 0;
      },
      &names);
  return names;
}

}  // namespace fb
