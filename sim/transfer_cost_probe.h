#pragma once
// The cost of tensor transfers between CPU devices of one process, and of their lossy 16-bit
// conversions (whitepaper 5.5), measured the way a placed model's step pays them (issue 17,
// profile schema 5). Used by `flowbench profile` (sim/executor_cost_probe.h) for the transfer
// and compression fields of ProfileExecutor.
//
// The probe: a Session with `devices` CPU devices of `threads` threads each (as `flowbench train
// --devices cpu:N` runs a placed model) runs chains of kStages stages, x -> s_0 -> ... -> s_K-1,
// each stage a Neg of the tensor (from 256 KiB) or, for smaller tensors, a broadcast Add over a
// 256 KiB constant and a Sum back (devices busy with expensive kernels that exchange small
// tensors, as a model's layers do with biases and shapes). A "local" chain puts every stage on CPU:0; a "ring" chain puts
// stage i on CPU:((i + 1) mod devices), so every edge crosses devices and the step hops through
// all the devices in turn, waking each one's thread, as a round-robin placement does. A tensor
// size per chain: 1 KiB, 16 KiB (each consumed by an expensive kernel, handed to the receiving
// device's thread; with a cheap Neg the sender ran it inline and paid 3 us instead of 12), the
// profile's kTransferProbeBytes (256 KiB, about what a core's cache holds), 1 MiB and 4 MiB.
//   transfer: (median Run of the ring - median Run of the local chain) / kStages per size, the
//     Runs alternating between the chains in blocks (a change of load moves both), and the
//     median over the blocks (a single block is unstable on a shared or idle virtual machine).
//   compression: the same ring chains in a second Session with the "compression" pass, so that
//     every transfer gets a _CompressFloat32 on the sender and a _DecompressFloat32 on the
//     receiver, as in a placed step with --compression on. The conversions' traced kernel times
//     (medians per size), and what the two extra nodes cost outside their kernels ((ring with
//     compression - ring) / kStages - the kernels), half to each side.
// On this 2-core machine (load 7, 2026-11-26): 3-4 us per transfer of 1 KiB, 14 us of 256 KiB;
// the conversions 0.3-0.4 us at 1 KiB, 44 and 18 us at 256 KiB (the kernels' own cost, which a
// 4-D tensor paid 2.3x of until the kernels stopped calling NumElements() per element).
// Costs are per transfer; bytes are the float32 tensor's.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/framework/status.h"
#include "sim/byte_cost_curve.h"
#include "sim/profile.h"

namespace fb::sim {

// The median of `v` (the mean of the middle two for an even count); 0 for an empty vector.
double MedianNs(std::vector<double> v);

struct TransferProbeOptions {
  int devices = 4;  // CPU devices of the probe's Session (>= 2)
  int threads = 1;  // inter-op threads per device (>= 1)
  int runs = 40;    // untraced Runs of each chain per block, traced Runs for the kernels (>= 1)
  int blocks = 5;   // blocks; each estimate is the median over them (>= 1)
};

// One tensor size of the probe: per transfer, ns.
struct TransferProbeSample {
  int64_t bytes = 0;         // the float32 tensor
  double transfer_ns = 0;    // what a transfer adds to the chain (median over the blocks)
  double compress_ns = 0;    // median traced _CompressFloat32 kernel
  double decompress_ns = 0;  // median traced _DecompressFloat32 kernel
  double conversion_overhead_ns = 0;  // compressed ring's extra time outside the two kernels
};

struct TransferCosts {
  std::vector<TransferProbeSample> samples;  // one per size, smallest first
  // ns per transfer against the float32 tensor's bytes, non-decreasing (MonotoneCurve): the
  // transfer, and each conversion with half the median conversion overhead of the sizes up to
  // kTransferProbeBytes (the two extra nodes' executor time does not grow with the tensor; at
  // larger sizes the difference of two long Runs is mostly the machine's load).
  ByteCostCurve transfer, compress, decompress;
};

// Runs the probe. Errors: InvalidArgument for options out of range; those of the Session.
StatusOr<TransferCosts> MeasureTransferCosts(const TransferProbeOptions& options);

// The pure part of MeasureTransferCosts: the curves of TransferCosts from the samples (any
// order). Exposed for tests.
TransferCosts CostsFromSamples(std::vector<TransferProbeSample> samples);

// The probe for `flowbench profile` (MeasureExecutorCosts): 4 devices of `threads` threads,
// 5 blocks of `runs` / 5 Runs (one block of `runs` Runs for runs < 100, a quick probe); fills e->transfer_points and the linear
// summary fields (sim/profile.h) and sets has_transfer_cost. Errors: MeasureTransferCosts'.
Status MeasureTransferProfile(int threads, int runs, ProfileExecutor* e);

// `flowbench profile --transfers-only`: MeasureTransferProfile (runs 200) for each executor row
// of `p` (schema 5 fields; the kernels' points and the other executor costs are kept), and a
// line per row and size for `log` (may be null). InvalidArgument when `p` has no executor row;
// the probe's errors.
Status RemeasureTransferCosts(Profile* p, const std::function<void(const std::string&)>& log);

// One line per transfer point of `e`: "threads 1, 4 devices, 1 KiB: transfer 3.5 us, compress
// 0.4 us, decompress 0.3 us".
std::vector<std::string> TransferPointLines(const ProfileExecutor& e);

}  // namespace fb::sim
