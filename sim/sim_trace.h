#pragma once
// Writes a simulation as an HDF5 trace in the schema of real runs (engine/trace,
// docs/trace-format.md) with mode "sim" (root attribute simulated = 1): simulated times in ns
// since the start of the simulation, one /events row per recorded node execution and message,
// one /steps row per step of every replica (rank r; the shared parameter servers of a
// synchronous run are rank = replicas), /graph of the placed one-replica graph, and /metrics
// "predicted_step_time_s" per step. `flowbench trace` and analysis/ read it like a real trace.
#include <string>

#include "engine/trace/trace_schema.h"
#include "sim/simulator.h"

namespace fb::sim {

// Errors: those of TraceWriter (naming the file).
Status WriteSimTrace(const std::string& path, const Simulation& sim, const SimResult& result,
                     const SimRunOptions& options, TraceMetadata metadata);

}  // namespace fb::sim
