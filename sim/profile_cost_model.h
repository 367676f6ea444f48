#pragma once
// Node times predicted from a host profile (sim/profile.h), for `--cost-model profile:FILE`:
// a node's time is read off the measured time-against-work curve of its op type, where work is
// the node's FLOPs (ops the analytic model gives FLOPs) or else its bytes accessed, both from the
// analytic cost model's formulas (engine/placement/op_cost.h) over the simulated shapes.
//
//   1. the curve of the same op type and node name (one per profiled model; a profiled node at
//      several batch sizes), when the node's work lies within its measured range (within 1%);
//   2. else the curve of every profiled node of that op type, when within its range;
//   3. else (outside every measured range) extrapolated from the nearest such curve --
//      flagged kExtrapolated. A CPU profile: the curve's end point nearest in work, scaled by
//      the size-dependent roofline fitted to the whole profile (sim/profile_calibration.h
//      FitOpEfficiency, sim/op_time_scales.h EfficientComputeNs: per op type, FLOP/s or bytes/s
//      as a function of the kernel's size), t = t_end * M(node) / M(end point), so that a node
//      bound by its weights' bytes (AlexNet's fc6 MatMul: 151 MB at every batch) stays flat and
//      a convolution grows with its FLOPs at the efficiency larger convolutions reach. (A
//      straight line through a node's points at batches 2 and 8 predicted AlexNet and Overfeat
//      at batch 16 +39% and +36% too slow: the weight-bound MatMuls, whose time did not grow
//      from 2 to 8, fell back to time proportional to FLOPs, 2x at batch 16, and the
//      convolutions, 3-5x from batch 2 to 8 as their efficiency rose, kept that slope.)
//      A GPU profile (or one without compute- and memory-bound points): a roofline fitted to the
//      curve, time = a + work / rate (least squares over its points, a >= 0, rate > 0);
//   4. an op type the profile never measured: kUnprofiled (the caller falls back to the
//      analytic roofline of the platform's device).
// Interpolation is linear in log(work)-log(time) between the curve's points (points whose work
// differs by under 1% are averaged first). Ops with no work (Identity, NoOp, Const ...) take the
// mean time of their op type. Only points of one thread count are used.
//
// Step correction: what a step spends outside its kernels (the executor; on a shared machine the
// wake-ups of the client and pool threads, each up to a scheduler time slice; with several
// threads, kernels overlapping), from the profiled configurations of the same thread count and
// their residuals r = median_step_ns - node_sum_ns. The noise of a shared machine only adds
// time, so the smallest residual is the estimate: when some r / node_sum_ns is negative (traced
// kernels slower than the untraced step, or kernels overlapping), node_time_factor = the
// smallest such ratio (at least -0.5 for a CPU profile: two threads overlapping halve a step;
// at least -0.95 for a GPU profile, whose traced steps synchronise after every node, so that a
// launch-bound step such as LeNet's on an H200 traces to 4x its untraced time) and no step
// overhead; otherwise step_overhead_ns = the smallest r. (The median residual added a loaded configuration's 6 ms to LeNet's 2 ms steps.)
// The fit uses the configurations of the simulated model when the profile holds it
// (MatchingModel: the graph's node names are mostly the profiled model's), else every
// configuration.
// The simulator adds step_overhead_ns once per step and scales every node by
// 1 + node_time_factor.
// One-thread CPU profiles (schema 2, nodes counted): kernels cannot overlap, so a negative
// residual is the tracing's own cost, a constant per traced node (the timestamps and the event
// record), not a share of node time: node_trace_ns = c of r = -c * nodes + noise, fitted by
// least squares weighted by 1 / node_sum^2 (the noise of the untraced step and of the traced
// kernels alike is a few percent of the step, of either sign; the largest -r / nodes took a 4% dip
// of LeNet's batch-256 kernels for 5 us per node and under-predicted its batch-16 steps by 46%),
// at least 0, and the simulator removes node_trace_ns per node of
// the simulated step (spread over its nodes in proportion to their time). A share fitted at
// MLP's batch 16 (-17%: 50 nodes of 0.2 ms) took 17% off its batch-256 steps as well, where the
// same 50 nodes' tracing is 2% of the step (hold-out of 2026-11-26: -20..-26% there).
//
// Executor overheads (schema-2 profiles, sim/executor_cost_probe.h): what a step spends outside
// its kernels is measured rather than fitted: run_ns once per step, node_gap_ns per node and
// handoff_ns per node handed to another thread (sim/executor_handoffs.h). The step correction is
// then fitted on the residuals left after them, r = median_step_ns - (node_sum_ns + run_ns +
// nodes * node_gap_ns + handoffs * handoff_ns): a negative smallest ratio r / node_sum_ns still
// becomes node_time_factor (kernels overlapping on several threads, traced kernels slower than
// untraced ones), but a positive residual is not added: with the executor's costs measured, what
// is left is the shared machine's noise in the profile's few steps (the quiet hold-out run of
// 2026-11-26 fitted 0.14 ms on MLP with one thread, where its executor costs were 5-70 us, and
// over-predicted MLP's 0.6 ms steps by 40%). A schema-1 profile (no measured costs), or
// use_step_costs = false, keeps the fitted correction and schema 1's per_step_ns and
// per_node_inline_ns. Immutable after Create; thread-safe.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/placement/device_desc.h"
#include "engine/placement/op_cost.h"
#include "sim/op_time_scales.h"
#include "sim/profile.h"

namespace fb::sim {

struct ProfilePrediction {
  enum class Source { kInterpolated, kExtrapolated, kUnprofiled };
  double time_ns = 0;  // 0 for kUnprofiled
  Source source = Source::kUnprofiled;
};

class ProfileCostModel {
 public:
  // The points of `profile` measured with `threads` threads. InvalidArgument naming `path` and
  // listing the thread counts it holds when it has no point with `threads`.
  // `use_step_costs` = false ignores the measured executor overheads of a schema-2 profile (the
  // schema-1 model, for comparison).
  static StatusOr<ProfileCostModel> Create(const Profile& profile, int threads,
                                           const std::string& path, bool use_step_costs = true);

  // `model` (MatchingModel's answer, or empty): where several profiled models have a node of this
  // name and op type (LeNet's and AlexNet's input/images), that model's measurements are read.
  ProfilePrediction Predict(const std::string& op, const std::string& node, const OpWork& work,
                            const std::string& model = "") const;
  // The executor's fixed costs for this thread count (zeros when the profile has none).
  const ProfileExecutor& executor() const { return executor_; }
  int threads() const { return threads_; }
  struct StepCorrection {
    double step_overhead_ns = 0, node_time_factor = 0;
    double node_trace_ns = 0;  // ns per node (one-thread CPU profiles; then no node_time_factor)
    int configurations = 0;  // profiled configurations it was fitted on
  };
  // Whether the measured executor overheads are used (a schema-2 profile with an /executor row
  // for these threads, and use_step_costs).
  bool uses_step_costs() const { return step_costs_; }
  // Nanoseconds a step spends outside its nodes: run_ns, or (without measured costs) schema 1's
  // per_step_ns plus the fitted step_overhead_ns of `c`.
  double StepFixedNs(const StepCorrection& c) const;
  // Nanoseconds a node spends outside its kernel: node_gap_ns, plus handoff_ns when it is handed
  // to another thread; or (without measured costs) schema 1's per_node_inline_ns.
  double NodeOverheadNs(bool handed_off) const;
  // Nanoseconds one tensor transfer between two devices of one process costs (schema-4
  // profiles: ProfileExecutor::transfer_ns measured with this thread count per device); 0 for
  // older profiles and use_step_costs = false. The simulator charges it to the receiving device
  // (SimCosts::in_process_transfer_s).
  double InProcessTransferNs() const {
    return step_costs_ && executor_.has_transfer_cost ? executor_.transfer_ns : 0;
  }
  // And per byte of the tensor, ns per byte (0 likewise).
  double InProcessTransferNsPerByte() const {
    return step_costs_ && executor_.has_transfer_cost ? executor_.transfer_ns_per_byte : 0;
  }
  // The same profiles' conversion costs of --compression, ns per float32 byte (0 otherwise).
  double CompressNsPerByte() const {
    return step_costs_ && executor_.has_transfer_cost ? executor_.compress_ns_per_byte : 0;
  }
  double DecompressNsPerByte() const {
    return step_costs_ && executor_.has_transfer_cost ? executor_.decompress_ns_per_byte : 0;
  }
  // Fitted on the configurations of `model` ("" or a model without configurations: all).
  StepCorrection Correction(const std::string& model = "") const;
  // The profiled model (with these threads) with the most node names in `nodes`, among those
  // whose names are at least 90% of their own in `nodes` and cover at least 60% of `nodes` (the
  // run's default graph passes remove 20-30% of a forward-backward graph's nodes before the
  // profile traces it: Identity, folded shapes); "" when none does. Among models with as many
  // names found, the one whose profiled nodes' work is nearest to `works` (the graph's nodes:
  // the sum over them of the log-distance of their work from their curve's measured range).
  struct NodeWork {
    std::string name, op;
    OpWork work;
  };
  std::string MatchingModel(const std::vector<std::string>& nodes,
                            const std::vector<NodeWork>& works = {}) const;
  // Whether the profile has points of `model` with these threads.
  bool HasModel(const std::string& model) const { return model_nodes_.count(model) > 0; }
  double step_overhead_ns() const { return Correction().step_overhead_ns; }
  double node_time_factor() const { return Correction().node_time_factor; }

  // A curve of time (ns) against work, sorted by work > 0; `constant_ns` for ops without work.
  struct Curve {
    bool by_flops = true;
    std::vector<std::pair<double, double>> points;  // (work, time_ns)
    std::vector<OpWork> point_work;                 // per point: its FLOPs and bytes
    double constant_ns = 0;                         // mean time of points without work
    bool has_constant = false;
    double fit_a_ns = 0, fit_ns_per_work = 0;       // the roofline fit
    std::string model;                              // a node's curve: its profiled model
  };

 private:
  ProfileCostModel() = default;
  int threads_ = 1;
  bool step_costs_ = false;
  bool gpu_ = false;  // a GPU profile (Profile::device_type "GPU")
  std::vector<ProfileStep> steps_;                       // of this thread count
  std::map<std::string, std::set<std::string>> model_nodes_;  // profiled node names per model
  ProfileExecutor executor_;
  std::map<std::string, Curve> by_op_;
  std::map<std::pair<std::string, std::string>, std::vector<Curve>> by_node_;  // (op, node)
  // The size-dependent roofline of a CPU profile, for extrapolation (step 3 above).
  bool has_extrapolation_model_ = false;
  DeviceDesc extrapolation_device_;
  OpEfficiency extrapolation_;
};

// The curve's time at `work` (log-log interpolation within the points; the roofline fit
// outside). `inside` tells which.
double CurveTimeNs(const ProfileCostModel::Curve& c, double work, bool* inside);

// Step 3's CPU extrapolation: the time of the curve's point nearest to `work` (its first or last),
// times model(work) / model(that point's FLOPs and bytes) under EfficientComputeNs(`model`, `op`,
// ..., `device`). 0 for a curve without points.
double ScaledFromNearestPoint(const ProfileCostModel::Curve& c, const std::string& op,
                              const OpWork& work, const OpEfficiency& model,
                              const DeviceDesc& device);

}  // namespace fb::sim
