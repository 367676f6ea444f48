#pragma once
// ALAP scheduling of Recv nodes (whitepaper 5.2: "Recv nodes ... could start much earlier than
// necessary, possibly all at once when execution starts ... We ... compute when a Recv is
// needed ... using critical path analysis ... and insert control edges with the aim of delaying
// the start of these nodes until just before their results are needed"). Runs after placement,
// before partitioning: the cost model's simulated ASAP schedule (schedule_sim.h) gives every
// node's start and finish; for each tensor sent to a device, the pass picks as gate the node on
// that device that finishes latest while still leaving the transfer time before the first
// consumer's start, among nodes that do not depend on the sending node (so the gate can never
// wait for the Recv: no deadlock). The choice is recorded on the producer as the attr
//   _recv_gates: list(string) of "port;destination device;gate node"
// and the partitioner gives that tensor's _Recv a control input from the gate. Graphs with
// control flow (Enter, Exit, Merge, Switch, NextIteration) are left alone.
#include "engine/partition/partition.h"
#include "engine/passes/graph_pass.h"

namespace fb {

// Chooses gates for every cross-device tensor of `g` (nodes must be placed) using `cost`. The
// report lists "'tensor' to device after 'gate'".
StatusOr<PassReport> ScheduleRecvsAlap(Graph* g, const CostModel& cost);

}  // namespace fb
