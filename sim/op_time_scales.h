#pragma once
// Per-op efficiencies of the analytic cost model on simulated devices (issue 17): a platform
// host may carry, for op types whose kernels reach a different fraction of the host's peak than
// the roofline assumes,
//   <prop id="op_time_scale:Conv2DBackpropInput" value="2.7"/>
// and `flowbench sim --cost-model analytic` multiplies the roofline time of such nodes on that
// device by the value. `flowbench sim-platform profile:FILE` writes one per profiled op type
// (sim/profile_calibration.h). Other cost models ignore them.
#include <map>
#include <string>
#include <vector>

#include "sim/platform.h"
#include "sim/program.h"

namespace fb::sim {

inline constexpr const char* kOpTimeScalePrefix = "op_time_scale:";

// op type -> scale from one host's properties. InvalidArgument naming `host` and the property
// for a value that is not a finite number > 0.
StatusOr<std::map<std::string, double>> ParseOpTimeScales(
    const std::map<std::string, std::string>& properties, const std::string& host);

// Per device name, from the hosts of `devices` (devices without such properties are left out).
StatusOr<std::map<std::string, std::map<std::string, double>>> OpTimeScales(
    const std::vector<SimDevice>& devices);

// `costs` with compute_s scaled per (device name, op type); unchanged when `scales` is empty.
SimCosts WithOpTimeScales(SimCosts costs,
                          std::map<std::string, std::map<std::string, double>> scales);

}  // namespace fb::sim
