#pragma once
// Per-op efficiencies of the analytic cost model on simulated devices (issue 17): a platform
// host may carry, for op types whose kernels reach a different fraction of the host's peak than
// the roofline assumes,
//   <prop id="op_time_scale:Conv2DBackpropInput" value="2.7"/>
// and `flowbench sim --cost-model analytic` multiplies the roofline time of such nodes on that
// device by the value. `flowbench sim-platform profile:FILE` writes one per profiled op type
// (sim/profile_calibration.h). Other cost models ignore them.
//
// Size-dependent rates (sim/op_rate_curves.h): a host may also carry, per op type,
//   <prop id="op_flops_per_s:Conv2D" value="3e+06:3.1e+10 1e+10:3.5e+11"/>
//   <prop id="op_bytes_per_s:Relu" value="3e+04:1e+10 3e+06:2.5e+10"/>
// and a node of such an op type with work (OpWork, engine/placement/op_cost.h) then takes
//   launch_overhead_ns + 1e9 * (compute-bound ? flops / F(flops) : bytes / B(bytes))
// where compute-bound means flops / speed >= bytes / memory_bandwidth_bytes_per_s with the
// host's own rates (the roofline's ridge point decides which resource binds, as in the plain
// roofline), F and B the op type's curves, or the host's speed and bandwidth where the op type
// has no curve of that kind. An op_time_scale of the same op type multiplies the result.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/placement/op_cost.h"
#include "sim/op_rate_curves.h"
#include "sim/platform.h"
#include "sim/program.h"

namespace fb::sim {

inline constexpr const char* kOpTimeScalePrefix = "op_time_scale:";
inline constexpr const char* kOpFlopsRatePrefix = "op_flops_per_s:";
inline constexpr const char* kOpBytesRatePrefix = "op_bytes_per_s:";

// op type -> scale from one host's properties. InvalidArgument naming `host` and the property
// for a value that is not a finite number > 0.
StatusOr<std::map<std::string, double>> ParseOpTimeScales(
    const std::map<std::string, std::string>& properties, const std::string& host);

// Everything a host says about its op types' efficiency.
struct OpEfficiency {
  std::map<std::string, double> time_scale;       // op_time_scale:OP
  std::map<std::string, OpRateCurve> flops_rate;  // op_flops_per_s:OP
  std::map<std::string, OpRateCurve> bytes_rate;  // op_bytes_per_s:OP
  bool empty() const { return time_scale.empty() && flops_rate.empty() && bytes_rate.empty(); }
};

// From one host's properties. InvalidArgument naming `host` and the property for a bad
// op_time_scale (ParseOpTimeScales), a bad curve (ParseOpRateCurve) or a prefix without an op.
StatusOr<OpEfficiency> ParseOpEfficiency(const std::map<std::string, std::string>& properties,
                                         const std::string& host);

// Per device name (devices whose hosts say nothing are left out); errors: ParseOpEfficiency's.
StatusOr<std::map<std::string, OpEfficiency>> OpEfficiencies(
    const std::vector<SimDevice>& devices);

// The analytic time (ns) of one execution of op type `op` with `work` on `device` under `e`
// (the formula above; AnalyticComputeNs times the op_time_scale for an op type without curves).
double EfficientComputeNs(const OpEfficiency& e, const std::string& op, const OpWork& work,
                          const DeviceDesc& device);

// `costs` with compute_s replaced by EfficientComputeNs per device that has an entry in
// `efficiencies`, for nodes that `work` knows (it returns nullptr for the others, which keep
// `costs`' time); unchanged when `efficiencies` is empty.
SimCosts WithOpEfficiencies(SimCosts costs, std::map<std::string, OpEfficiency> efficiencies,
                            std::function<const OpWork*(const Node&)> work);

}  // namespace fb::sim
