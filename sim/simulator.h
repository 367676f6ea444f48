#pragma once
// The SimGrid simulator (issue 6): replays a graph, placed and partitioned by the engine, on a
// simulated platform with the S4U API. Every (device, replica) is an actor on the device's host
// running its partition with the executor's bookkeeping (pending counts, a ready queue ordered
// by the schedule policy, sim/schedule.h); compute is a SimGrid Exec of (seconds from the cost
// model) x (host speed) FLOPs, so devices shared by several actors slow down; every _Send/_Recv
// pair is a SimGrid Comm over the platform's route, sharing link bandwidth with other flows.
//
//   Simulation sim;
//   RETURN_IF_ERROR(sim.LoadPlatform("sim/platforms/node_8gpu_nvlink.xml"));
//   ASSIGN_OR_RETURN(SimResult r, sim.Run(graph, costs, options));
//
// Model (docs/simulator.md): a device runs one node at a time (a GPU stream; a CPU device's
// intra-op parallelism is in its speed); nodes that become ready while a device computes are
// queued and considered when its current batch of work ends (a batch ends after every _Send);
// _Send is asynchronous (whitepaper 3.2.2), _Recv completes when the data has arrived; memory
// in use is accounted per device against its capacity (sim/memory_plan.h); allreduce data
// parallelism runs Open MPI's collective rounds (sim/allreduce_program.h); while loops are
// replayed for their iteration counts (sim/loop_replay.h); a replica on a device of another
// speed than replica 0's computes proportionally slower or faster. Kernel-level contention
// inside a device and failures are not simulated.
//
// SimGrid keeps one engine per process: only one Simulation may exist at a time (checked), and
// the network model is set once per process (CM02, no TCP window or latency factors, so a
// transfer takes exactly latency + bytes / bandwidth on an uncontended route). Not thread-safe.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/framework/status.h"
#include "engine/graph/graph.h"
#include "sim/loop_replay.h"
#include "sim/platform.h"
#include "sim/program.h"
#include "sim/result.h"
#include "sim/workload.h"

namespace simgrid::s4u {
class Engine;
}

namespace fb::sim {

struct ReplayState;

struct SimRunOptions {
  WorkloadOptions workload;
  bool record_events = false;   // fill SimResult::events (one per node execution / message)
  double max_batch_s = 1e-3;    // longest run of compute before the ready queue is consulted
  // Require every device the run uses to declare its memory capacity (host property
  // memory_bytes, sim/platform.h). Devices that declare one are checked for out-of-memory
  // either way (sim/memory_plan.h).
  bool check_memory = false;
  LoopCounts loops;  // iteration counts of while loops (sim/loop_replay.h)
  // The whole client graph the simulated step was pruned from (not owned; may be null). When
  // set, it is placed first and every node of the step that it holds (same name and op) keeps
  // its device there, then the rest is placed: what a Session does (PlaceLikeFullGraph in
  // engine/runtime/session.cc), so round_robin and the cost-based placers see the nodes the
  // real run places (initializers and metrics shift round_robin's order). Not with parameter
  // servers (workload.ps > 0): dist-train's master places the training step itself, and the
  // client graph's initializers would conflict with the PS constraints of their Variables.
  // Where the client graph cannot be placed (e.g. the placer's memory check counts its
  // initializers), the step is placed alone.
  const Graph* client_graph = nullptr;
  // The master's run requests and done replies as messages over the platform's links
  // (sim/control_plane.h); not in allreduce runs.
  bool control_plane = false;
  // Replaces every device host's message_overhead_ns, serialize_bytes_per_s,
  // message_latency_ns and send_serialize_bytes_per_s properties (sim/message_cost.h) when set.
  std::optional<MessageCost> message_cost;
};

class Simulation {
 public:
  Simulation();
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Loads a SimGrid XML platform (sim/platform.h for device properties), validated first
  // (sim/platform_validation.h) so that SimGrid never sees a file it would abort on.
  // InvalidArgument naming the file (and the line, host, link or zone) for a bad platform or
  // an exception of SimGrid's parser, NotFound for a missing file; FailedPrecondition when a
  // platform is already loaded.
  Status LoadPlatform(const std::string& path);
  const std::vector<SimDevice>& devices() const { return devices_; }
  const std::string& platform_path() const { return platform_path_; }

  // Places (engine/placement), partitions (engine/partition) and replays `graph` (left
  // unchanged: a clone is placed). While loops are replayed for their iteration counts
  // (options.loops, sim/loop_replay.h). Errors: those of PlanLoops (a loop without a count,
  // naming its frame and NextIteration node); those of placement and partitioning (naming the
  // node), of AssignRoles and ApplySchedule; InvalidArgument naming the platform file and both
  // hosts when two hosts that exchange tensors (in any replica) have no route; Internal when the replay stalls (a _Recv whose
  // _Send never runs); ResourceExhausted ("OOM on device ...", sim/memory_plan.h) when a device
  // with a declared capacity runs out of memory; InvalidArgument naming the platform file and
  // host when check_memory is set and a device declares no capacity. Only one Run per Simulation.
  StatusOr<SimResult> Run(const Graph& graph, const SimCosts& costs, const SimRunOptions& options);

  // The program and roles of the last Run (for traces and tests).
  const SimProgram& program() const { return program_; }
  const RoleAssignment& roles() const { return roles_; }
  const Graph* placed_graph() const { return placed_.get(); }

 private:
  Status Prepare(const Graph& graph, const SimCosts& costs, const SimRunOptions& options);
  Status CheckRoutes() const;
  void EstimateTransfers(const WorkloadOptions& workload);
  Status SetUpDevices(ReplayState* st) const;
  Status SetUpMessages(ReplayState* st, const std::vector<int>& used_devices) const;

  std::unique_ptr<simgrid::s4u::Engine> engine_;
  double clock_origin_s_ = 0;
  std::string platform_path_;
  std::vector<SimDevice> devices_;
  std::unique_ptr<Graph> placed_;
  SimProgram program_;
  RoleAssignment roles_;
  bool ran_ = false;
};

}  // namespace fb::sim
