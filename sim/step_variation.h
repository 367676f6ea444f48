#pragma once
// How real workers differ from the simulator's identical replicas (OSDI 2016 section 6.3; Chen et
// al. 2016, "Revisiting distributed synchronous SGD", arXiv:1604.00981): per-step variation of a
// worker's compute time and the start times of the replicas.
//
//   stragglers P:F     a (replica, step) is F times slower with probability P (sim/workload.h)
//   compute noise      a (replica, step)'s compute is multiplied by 1 + E, E exponential with mean
//                      M (the shifted-exponential step time of the straggler literature: a floor,
//                      the noise-free compute, and a tail in which P(1 + E > 1 + x) = exp(-x / M))
//   start spread S     replica r's actors begin their first step r * S / replicas seconds after
//                      replica 0's (workers launched one after another, so that asynchronous
//                      replicas do not all send and receive at the same instants)
//
// Every draw is a hash of (seed, replica, step): reproducible and independent of actor order.
// Both factors apply to the compute of worker partitions only (never to a parameter server's,
// including the per-replica parameter-server instances of async runs); they multiply.
#include <cstdint>
#include <string>

#include "engine/framework/status.h"
#include "sim/workload.h"

namespace fb::sim {

inline constexpr double kMaxComputeNoiseMean = 1e6;  // --compute-noise exp:M, M at most
inline constexpr double kMaxStartSpreadS = 1e6;      // --start-spread, seconds (11.6 days)

// Parses --compute-noise: "off" (M = 0) or "exp:M" with 0 <= M <= kMaxComputeNoiseMean, the mean of E relative to
// the compute (0.1: a step's compute is on average 10% above its noise-free value). Sets
// options->compute_noise_mean. InvalidArgument naming --compute-noise and the text otherwise.
Status ParseComputeNoise(const std::string& text, WorkloadOptions* options);

// Parses --start-spread: seconds in [0, kMaxStartSpreadS] (SimGrid 3.32 aborts on a sleep of
// 1e308 s). Sets options->start_spread_s.
// InvalidArgument naming --start-spread and the text otherwise.
Status ParseStartSpread(const std::string& text, WorkloadOptions* options);

// The factor by which replica `replica`'s compute in `step` is multiplied: the straggler factor
// (straggler_slowdown with probability straggler_probability, else 1) times 1 + E (compute
// noise, E = -M ln(1 - u)). 1 for replica < 0 (a shared parameter-server instance). Deterministic
// in (options.seed, replica, step); the two draws use independent hash streams.
double ComputeSlowdown(const WorkloadOptions& options, int32_t replica, int64_t step);

// Seconds after the start of the run at which `replica` begins its first step:
// replica * start_spread_s / replicas (0 for replica <= 0).
double StartOffsetSeconds(const WorkloadOptions& options, int32_t replica);

}  // namespace fb::sim
