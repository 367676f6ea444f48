#pragma once
// Recalibration of the analytic cost model's CPU device from a host profile (issue 17): the
// roofline of engine/placement/cost_model.h (time = launch + max(FLOPs / peak, bytes / bandwidth))
// fitted to what `flowbench profile` measured, for `flowbench sim-platform profile:FILE OUT.xml`.
//
//   launch_overhead_ns  median time of the profiled nodes without work (Identity, NoOp, Const...)
//   flops_per_s         sum of FLOPs / sum of (time - launch) over nodes with at least one FLOP
//                       per byte (MatMul, convolutions and their gradients: compute-bound)
//   bandwidth           sum of bytes / sum of (time - launch) over the other nodes with work
//   op_time_scale       per op type: its measured time / its roofline time, summed over its
//                       nodes (the per-op efficiency the single roofline lacks: on this machine
//                       MatMul reaches several times the FLOP/s of Conv2DBackpropInput)
// then the three rates scaled by one factor k, the median over the profiled configurations of
// (measured median step / the scaled roofline's sum over the configuration's nodes), so that
// the analytic model also carries what a step spends outside its kernels.
#include <map>
#include <string>

#include "sim/profile.h"

namespace fb::sim {

struct CpuCalibration {
  double flops_per_s = 0;
  double memory_bandwidth_bytes_per_s = 0;
  double launch_overhead_ns = 0;
  double step_scale = 1;  // k above
  int configurations = 0;
  std::map<std::string, double> op_time_scale;  // op type -> scale (sim/op_time_scales.h)
};

// From the points and steps of `threads` threads. InvalidArgument naming `path` when the profile
// has no configuration with that thread count or no compute-bound or memory-bound node;
// FailedPrecondition naming `path` for a profile of another device type than CPU (a GPU).
StatusOr<CpuCalibration> CalibrateCpu(const Profile& profile, int threads,
                                      const std::string& path);

// One CPU device "cpu0" with the calibration's rates and an op_time_scale property per op type
// (sim/platform_generator.h SingleCpuXml; errors are its).
StatusOr<std::string> CalibratedCpuXml(const CpuCalibration& c);

}  // namespace fb::sim
