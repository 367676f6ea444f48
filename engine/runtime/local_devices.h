#pragma once
// The devices of this process for a `--devices` flag (engine/placement/device_config.h), as the
// DeviceMgr a Session runs on (SessionOptions::device_mgr): `flowbench train` and `flowbench
// benchmark` (experiments/training) create theirs here.
//   cpu:N  N CPU devices sharing `threads` threads; no GPU device even where GPUs are visible
//          (so a CPU run stays a CPU run on a GPU machine).
//   gpu:N  CPU:0 with `threads` threads (the host: input pipeline, feeds, fetches, checkpoints;
//          engine/placement/host_ops.h) and GPU:0..N-1 from the GPU device factory
//          (kernels/cuda/gpu_device.h). The default placer ("single") puts every compute op
//          that has a GPU kernel on GPU:0 and the rest on CPU:0 (baseline_placers.cc).
#include <memory>
#include <string>
#include <vector>

#include "engine/framework/device.h"

namespace fb {

// gpu:N first loads GPU support (libflowbench_cuda.so, engine/framework/device_plugin.h): a CPU
// run never maps the CUDA libraries.
// Errors: InvalidArgument for a malformed flag (ParseDevicesFlag) or threads < 1;
// Unavailable "--devices gpu:1: GPU support not available: <dlerror>" when the GPU module of a
// CUDA build cannot be loaded;
// FailedPrecondition naming the flag when fewer GPUs are visible than gpu:N asks for, e.g.
// "--devices gpu:1: no GPU visible (cudaGetDeviceCount found none, or flowbench was built without
// CUDA)"; the device factories' errors (a GPU whose context cannot be made).
StatusOr<std::shared_ptr<DeviceMgr>> CreateDevicesForFlag(const std::string& spec, int threads);

// "name (description)" of every device of `mgr`, in order, for metrics and headers, e.g.
// "/job:localhost/replica:0/task:0/device:GPU:0 (NVIDIA H200)".
std::vector<std::string> DescribeDevicesForMetrics(const DeviceMgr& mgr);

}  // namespace fb
