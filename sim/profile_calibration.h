#pragma once
// Recalibration of the analytic cost model's CPU device from a host profile (issue 17): the
// roofline of engine/placement/cost_model.h (time = launch + max(FLOPs / peak, bytes / bandwidth))
// fitted to what `flowbench profile` measured, for `flowbench sim-platform profile:FILE OUT.xml`.
//
//   launch_overhead_ns  median time of the profiled nodes without work (Identity, NoOp, Const...)
//   flops_per_s         sum of FLOPs / sum of (time - launch) over nodes with at least one FLOP
//                       per byte (MatMul, convolutions and their gradients: compute-bound)
//   bandwidth           sum of bytes / sum of (time - launch) over the other nodes with work
//   op_flops_per_s:OP   per op type with work, the rate its kernels reach as a function of
//   op_bytes_per_s:OP   their size (sim/op_rate_curves.h): the op type's profiled nodes are
//                       split by the roofline's ridge point (flops / flops_per_s >= bytes /
//                       bandwidth: compute-bound, rated by FLOPs; else memory-bound, rated by
//                       bytes), grouped in half-decades of their work (FLOPs, resp. bytes), and
//                       each group gives one knot: (geometric mean work, sum of work / sum of
//                       (time - launch)), so that the knots reproduce the group's total time.
//                       On this machine Conv2D goes from 31 GFLOP/s at 3 MFLOP to 350 GFLOP/s at
//                       10 GFLOP, Relu from 10 to 25 GB/s: a profile of the sizes to be
//                       predicted (the convnets' kernels, not only LeNet's) is what the curves
//                       need; beyond the profiled sizes they keep the end knots' rates.
//   op_time_scale:OP    per op type profiled only without work (Identity, NoOp, Const...): its
//                       measured time / the launch overhead, summed over its nodes
// then every rate scaled by one factor k, the median over the profiled configurations of
// (measured median step / the model's sum over the configuration's nodes,
// sim/op_time_scales.h EfficientComputeNs), so that the analytic model also carries what a step
// spends outside its kernels, or (k < 1, several threads) the kernels' overlap.
// Older platforms with only op_time_scale properties still load (the pre-curve calibration).
#include <map>
#include <string>

#include "engine/placement/device_desc.h"
#include "sim/op_rate_curves.h"
#include "sim/op_time_scales.h"
#include "sim/profile.h"

namespace fb::sim {

struct CpuCalibration {
  double flops_per_s = 0;
  double memory_bandwidth_bytes_per_s = 0;
  double launch_overhead_ns = 0;
  double step_scale = 1;  // k above
  int configurations = 0;
  std::map<std::string, double> op_time_scale;  // op type -> scale (sim/op_time_scales.h)
  std::map<std::string, OpRateCurve> op_flops_rate, op_bytes_rate;  // FLOP/s, bytes/s
};

// The points and steps of several profiles of one host as one profile (e.g. LeNet and MLP at
// batches 16-256 from one `flowbench profile` run, the convnets at batches 2 and 8 from
// another). InvalidArgument naming both paths when their device types differ or when a
// configuration (model, batch, threads) is in both.
StatusOr<Profile> MergeProfiles(const std::vector<std::pair<std::string, Profile>>& profiles);

// From the points and steps of `threads` threads. InvalidArgument naming `path` when the profile
// has no configuration with that thread count or no compute-bound or memory-bound node;
// FailedPrecondition naming `path` for a profile of another device type than CPU (a GPU).
StatusOr<CpuCalibration> CalibrateCpu(const Profile& profile, int threads,
                                      const std::string& path);

// The per-op efficiency model of `points` (one thread count) before the step scale: the
// launch overhead, the host rates and the curves above (step_scale 1, configurations 0).
// InvalidArgument naming `path` when no point is compute-bound or none memory-bound.
StatusOr<CpuCalibration> FitOpEfficiency(const std::vector<const ProfilePoint*>& points,
                                         const std::string& path);

// The calibration's device and per-op model (sim/op_time_scales.h).
DeviceDesc CalibratedDevice(const CpuCalibration& c);
OpEfficiency CalibratedEfficiency(const CpuCalibration& c);

// One CPU device "cpu0" with the calibration's rates and its op_flops_per_s, op_bytes_per_s and
// op_time_scale properties (sim/platform_generator.h SingleCpuXml; errors are its), headed by an
// XML comment giving the formula and `source` (the profiles and thread count it was fitted to;
// InvalidArgument when `source` holds "--", which an XML comment cannot).
StatusOr<std::string> CalibratedCpuXml(const CpuCalibration& c, const std::string& source = "");

}  // namespace fb::sim
