#pragma once
// Control loops for partitioned loops (whitepaper 4.4, "distributed execution of loops"; after
// TensorFlow's graph_partition.cc AddControlFlow). When a loop's nodes span devices, each device
// partition holding nodes of loop frame F gets a small state machine in F:
//
//   Enter(dummy) -> Merge -> Switch(., loop condition) -> Identity (pivot) -> NextIteration -> Merge
//
// The partition that holds F's LoopCond feeds it directly; every other one receives the
// LoopCond's value each iteration (a _Send/_Recv pair). Every _Recv of F in the partition gets
// a control input from the state machine's Merge, so that it runs once per iteration, in the
// right (frame, iteration), including the last one, where dead values are exchanged. The
// devices thus agree on when the loop ends without a central coordinator.
#include <map>
#include <string>

#include "engine/graph/control_flow_info.h"
#include "engine/graph/graph.h"

namespace fb {

// `recv_frames`: per device, per _Recv node name, the frame its value lives in. Adds the
// state machines (named "<frame>/_control_loop/...") to `partitions`. InvalidArgument when a
// frame has no LoopCond.
Status AddControlLoops(const Graph& g, const ControlFlowInfo& info,
                       const std::map<std::string, std::map<std::string, std::string>>& recv_frames,
                       std::map<std::string, GraphDef>* partitions);

}  // namespace fb
