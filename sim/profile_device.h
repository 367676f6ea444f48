#pragma once
// Which device and which step a profile (sim/profile.h) can predict (issue 21, item 5): a
// profile measured one device (a CPU host, or a GPU such as "NVIDIA H200, sm_90, 143155 MiB")
// running one benchmark mode (forward, forward-backward or train). `flowbench sim --cost-model
// profile:FILE` refuses, naming the file and what differs, to predict with it
//   - a device of another type (a GPU host from a CPU profile, or the reverse);
//   - a GPU host that does not declare the profiled GPU (host property device_model,
//     sim/platform.h, compared without the memory size: "NVIDIA H200, sm_90" matches a profile
//     of "NVIDIA H200, sm_90, 143155 MiB"); a CPU host that declares another device_model (a
//     CPU host without one is taken to be the profiled host, as before profiles had devices);
//   - a `--model` step of another mode than the profiled one (`--model-mode`; by default the
//     profile's mode is simulated).
#include <string>
#include <vector>

#include "sim/platform.h"
#include "sim/profile.h"
#include "sim/workload.h"

namespace fb::sim {

// A device description without its trailing memory size: "NVIDIA H200, sm_90, 143155 MiB" ->
// "NVIDIA H200, sm_90" (unchanged when it has none).
std::string DeviceModel(const std::string& description);

// The description of the first device of `type` ("GPU") in `devices`, each "name (description)"
// as BenchmarkResult::devices lists them; "" when there is none or it has no description.
std::string DeviceDescriptionOfType(const std::vector<std::string>& devices,
                                    const std::string& type);

// OK when profile `p` (read from `profile_path`) describes device `d` of `platform_path` (rules
// above); FailedPrecondition naming the profile file, its device, the platform file, the host
// and what it declares otherwise.
Status CheckProfileDevice(const Profile& p, const std::string& profile_path, const SimDevice& d,
                          const std::string& platform_path);

// CheckProfileDevice for every platform device the workload runs on (AssignRoles: the parameter
// servers and every replica's devices). Errors: those of AssignRoles and CheckProfileDevice.
Status CheckProfileDevices(const Profile& p, const std::string& profile_path,
                           const std::vector<SimDevice>& platform, const std::string& platform_path,
                           const WorkloadOptions& workload);

// The benchmark mode `flowbench sim --model` builds with this profile: `requested` when given
// ("" : not given) and equal to the profile's mode, the profile's mode when not given.
// FailedPrecondition naming the file and both modes when they differ.
StatusOr<std::string> ProfileModelMode(const Profile& p, const std::string& profile_path,
                                       const std::string& requested);

}  // namespace fb::sim
