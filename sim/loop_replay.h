#pragma once
// While loops in the replay (whitepaper 4.4; issue 17). The replay runs every node of a step's
// program once, so a loop (Enter, Merge, Switch, LoopCond, body, NextIteration, Exit) is
// replayed as one pass whose nodes cost as many executions as the loop makes:
//   body nodes (and NextIteration)                 I executions (the body runs I times)
//   Merge, Switch, LoopCond and the predicate      I + 1 (the last test exits the loop)
//   Enter, Exit                                    1
// per instance of the loop's frame (a loop nested in another runs once per outer iteration:
// multiply by the outer loop's executions). The back edge NextIteration -> Merge is removed (the
// Merge starts from its Enter) and every Exit waits for its frame's NextIteration nodes, so that
// nothing after the loop starts before its last iteration. Iterations run back to back on one
// device: overlap of consecutive iterations (parallel_iterations) is not modelled, and a loop
// whose nodes are on several devices is refused.
//
// I comes, per frame, from a trace (the mean number of executions per step of the frame's
// NextIteration nodes, NodeExecutionsFromTrace; nodes found in the trace use their own counts) or
// from --loop-iterations N.
#include <map>
#include <string>

#include "engine/framework/status.h"
#include "engine/graph/graph.h"
#include "sim/program.h"

namespace fb::sim {

struct LoopCounts {
  std::map<std::string, double> executions_per_step;  // node name -> mean executions per step
  int64_t iterations = -1;                            // --loop-iterations; -1: not given
};

// Mean executions per step of every node with compute events in the trace at `path` (over the
// steps that have events). Errors of TraceReader::Open (naming the file).
StatusOr<std::map<std::string, double>> NodeExecutionsFromTrace(const std::string& path);

// Parses --loop-iterations: "" (not given) -> -1, else an integer >= 0. InvalidArgument naming
// the flag and the text otherwise (negative, not a number, out of range).
StatusOr<int64_t> ParseLoopIterations(const std::string& text);

// Rewrites `program` (compiled from the placed graph `placed`) as described above. Errors:
// InvalidArgument naming the frame and its NextIteration node when no count is known for a loop
// ("give --loop-iterations N or a measured trace"), or for counts.iterations < -1; Unimplemented
// naming the frame and two devices for a loop spread over several devices; those of
// ControlFlowInfo::Build. A graph without loops is left unchanged.
Status PlanLoops(const Graph& placed, const LoopCounts& counts, SimProgram* program);

}  // namespace fb::sim
