#pragma once
// Allreduce data parallelism in the replay (issue 17), as `flowbench dist-train --mode allreduce`
// builds it (mpi/data_parallel.cc, BuildAllreduceReplica): every replica holds its own copy of
// the Variables on its one device, computes its gradients, and one fused MpiAllreduce per step
// (mpi/allreduce_op.cc) averages all of them before the variable updates run. The simulator
// inserts that fused collective into the compiled program: a kCollective node whose inputs are
// the gradients of every update op (the input named `grad` or `delta` of an op with a ref input:
// ApplyGradientDescent, ApplyAdam, ApplyMomentum ...) and whose consumers are those update ops.
// The replay runs it as the point-to-point rounds of the algorithm Open MPI selects
// (sim/allreduce_model.h) between the replicas' actors (sim/allreduce_replay.cc).
#include "engine/framework/status.h"
#include "engine/graph/graph.h"
#include "sim/program.h"

namespace fb::sim {

// Inserts the collective into `program` (one partition: one device per replica). The graph is
// the placed graph the program was compiled from; gradient bytes come from costs.output_bytes.
// A graph that already contains MpiAllreduce nodes (a dist-train graph) keeps them: each becomes
// a collective over its inputs. InvalidArgument when the program has several partitions or the
// graph updates no variable.
Status InsertAllreduce(const Graph& placed, const SimCosts& costs, SimProgram* program);

}  // namespace fb::sim
