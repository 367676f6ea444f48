#pragma once
// Device support loaded on first use. The GPU device, its CUDA/cuBLAS/cuDNN/NCCL kernels and the
// ops only they implement (NcclAllReduce) are built as a shared module, libflowbench_cuda.so
// (cmake/cuda.cmake), that a flowbench program dlopen()s the first time a GPU is asked for, as
// TensorFlow's stream executor loads libcudart/libcublas/libcudnn only when its CUDA platform
// initializes. A CPU-only run never maps the CUDA libraries (libcublasLt alone is about 190 MiB
// of peak RSS: docs/benchmarks.md, "Peak memory"). The module's static initializers register its
// kernels, ops and the GPU DeviceFactory in the registries of the program that loads it (the
// programs export their symbols: ENABLE_EXPORTS).
//
// Who loads it: CreateDevicesForFlag("gpu:N") (engine/runtime/local_devices.h), a kernel lookup
// for device type GPU (KernelRegistry::HasKernel, CreateKernel, MemoryTypesForNode, TypesForOp:
// placement over device descriptions with a GPU, `flowbench place`, the simulator's GPU
// platforms) and `flowbench ops`. DeviceMgr::CreateLocal (a Session without a DeviceMgr, MPI
// workers) makes only the devices already registered: CPU, unless GPU support is loaded.
//
// Where it is found: $FLOWBENCH_GPU_MODULE (a path) when set; else libflowbench_cuda.so in the
// directory of the running executable (/proc/self/exe; the build directory, or .device/bin of
// scripts/gpu-check); else the dynamic linker's search (LD_LIBRARY_PATH, RUNPATH).
//
// Thread-safety: every function here may be called from any thread; the module is loaded at most
// once per process and never unloaded.
#include <string>
#include <vector>

#include "engine/framework/status.h"

namespace fb {

// Whether this build of flowbench has support for `device_type` ("GPU": built with CUDA), linked
// in or as a module. CPU is always built.
bool DeviceSupportBuilt(const std::string& device_type);

// Makes the support of `device_type` present in this process, loading its module if it is not
// yet loaded or linked in. OK for CPU and when the support is present. Unavailable
// "GPU support not available: ..." when flowbench was built without it, or the module cannot be
// loaded: the message quotes dlerror() (a missing libflowbench_cuda.so, libcudnn.so.9 or an
// undefined symbol) and names the paths tried. A failed load is not retried: later calls return
// the same status. Loading a module without a visible GPU succeeds (the CUDA runtime reports 0
// devices and the GPU DeviceFactory does not register).
Status LoadDeviceSupport(const std::string& device_type);

// Whether the support of `device_type` is present (linked in, or its module loaded).
bool DeviceSupportPresent(const std::string& device_type);

// For kernel registry lookups of `device_type`: loads its support on the first lookup (a no-op
// for CPU, for support already present and after one failed attempt). A failure is logged once
// to stderr in builds that have the support; lookups then find no kernels of that type.
void LoadDeviceSupportForLookup(const std::string& device_type);

// Called by a static initializer of the device support itself (kernels/cuda/gpu_device.cc): a
// program that links it directly (flowbench_gpu_tests, flowbench-gpubench) must never load the
// module a second time (its registrations would collide).
void MarkDeviceSupportPresent(const std::string& device_type);

// The file names of the shared objects mapped into this process (dl_iterate_phdr: the
// executable's DT_NEEDED libraries and every dlopen()ed module), in load order. For tests and
// the FLOWBENCH_PRINT_LOADED_LIBRARIES debug output of the flowbench CLI.
std::vector<std::string> LoadedSharedObjects();

}  // namespace fb
