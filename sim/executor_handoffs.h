#pragma once
// Thread hand-offs of one step on a CPU device, counted on the graph (issue 17), for the profile
// cost model's executor overheads (sim/profile_cost_model.h). The real executor
// (engine/runtime/executor_state.cc, ScheduleReady) keeps the cheap nodes a completing node makes
// ready and one expensive node (kernel time above Executor::kInexpensiveNs, 2 us) on its thread
// and hands each further expensive node to an inter-op pool thread, which costs a wake-up
// (ProfileExecutor::handoff_ns). Statically, a node becomes ready when the last of its inputs in
// topological order completes; nodes without inputs are ready at the step's start. So per
// completing node (and once for the roots), the expensive nodes it makes ready beyond the first
// (in topological order) are handed off.
//
// Not counted: the hand-off of a lone expensive node when the thread still has cheap nodes
// queued, and the caller's wake-up at the end of the step (both once per step in a model's step:
// ProfileExecutor::run_ns measures them on a step of that shape).
#include <functional>
#include <set>
#include <string>

#include "engine/graph/graph.h"

namespace fb::sim {

// The names of the nodes of `g` that are handed to another thread in one step, given which nodes
// are expensive. Back edges out of NextIteration nodes are ignored (a loop's body counts once).
// InvalidArgument naming a node on a cycle (Graph::TopologicalOrder).
StatusOr<std::set<std::string>> HandedOffNodes(const Graph& g,
                                               const std::function<bool(const Node&)>& expensive);

}  // namespace fb::sim
