#pragma once
// Internal to the simulator (sim/simulator.cc, sim/device_actor.cc): the state shared by all
// actors of one replay. SimGrid runs actors one at a time, so plain fields need no locking;
// blocking waits use S4U's Mutex and ConditionVariable.
#include <simgrid/s4u.hpp>

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "sim/control_plane.h"
#include "sim/message_cost.h"
#include "sim/mpi_protocol.h"
#include "sim/program.h"
#include "sim/result.h"
#include "sim/simulator.h"

namespace fb::sim {

// One actor: partition `partition` of the program for `replica` (-1: the shared instance of a
// parameter-server partition in a synchronous run).
struct ActorSlot {
  int32_t partition = 0;
  int32_t replica = 0;
  int32_t group = 0;   // replica r -> r; shared -> num_replicas
  int32_t device = 0;  // platform device index
  simgrid::s4u::Mailbox* mailbox = nullptr;
};

// A message: one transfer of one step, sent by `replica`.
struct SimMessage {
  int32_t transfer = 0;
  int32_t replica = 0;
  int64_t step = 0;
  double sent_s = 0;
  int64_t wire_bytes = 0;
  int32_t src_device = 0;
};

struct ReplayState {
  const SimProgram* program = nullptr;
  SimRunOptions options;
  const std::vector<SimDevice>* devices = nullptr;
  int num_replicas = 1;
  bool delay_transfers = false;          // alap-recv
  std::vector<bool> partition_shared;    // sync parameter-server partitions
  std::vector<bool> partition_is_ps;
  std::vector<ActorSlot> slots;
  // slot index of (partition, replica); shared partitions use replica 0's entry.
  std::vector<std::vector<int32_t>> slot_of;
  double origin_s = 0;

  // Step gating of actor groups.
  std::vector<int32_t> group_size;
  std::vector<std::map<int64_t, int32_t>> group_remaining;  // step -> actors still running it
  std::vector<std::map<int64_t, SimStep>> group_steps;
  std::vector<int64_t> group_done_upto;  // steps [0, done_upto) all complete
  simgrid::s4u::MutexPtr mutex;
  simgrid::s4u::ConditionVariablePtr step_done;

  std::map<std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*>,
           std::vector<simgrid::s4u::Link*>> routes;
  std::unordered_map<simgrid::s4u::Link*, int64_t> link_bytes;
  // Link property mpi_eager_limit of the links that have one (sim/mpi_protocol.h).
  std::unordered_map<const simgrid::s4u::Link*, int64_t> link_eager_limit;
  SimResult* result = nullptr;
  Status error;
  // Per-message handling on the receiving host (sim/message_cost.h) and the master's run
  // requests and done replies (sim/control_plane.h); both off unless configured.
  MessageQueues messages;
  ControlPlane control;

  // Heterogeneous replicas: the FLOP/s of the device each partition's costs were computed for
  // (replica 0's); an actor on a host of another speed runs its compute slower or faster.
  std::vector<double> template_speed;  // per partition
  // Memory per platform device (sim/memory_plan.h): bytes in use, peak, capacity (0: unknown).
  std::vector<int64_t> mem_in_use, mem_peak, mem_capacity;
  // Adds `bytes` to `device`'s memory in use for `node` of `step`. False, with a
  // ResourceExhausted error in `error`, when the device's capacity is exceeded.
  bool Allocate(int32_t device, int64_t bytes, const std::string& node, int64_t step);
  void Free(int32_t device, int64_t bytes) { mem_in_use[device] -= bytes; }

  int32_t Slot(int32_t partition, int32_t replica) const {
    return slot_of[partition][partition_shared[partition] ? 0 : replica];
  }
  bool GroupStepDone(int32_t group, int64_t step) const {
    return step < 0 || step < group_done_upto[group];
  }
  // Whether `group` may start the step after `step`: its own previous step is done or, with the
  // control plane of a synchronous run (sim/control_plane.h), every group's.
  bool StepGateOpen(int32_t group, int64_t step) const {
    if (!control.global_gate) return GroupStepDone(group, step);
    for (size_t g = 0; g < group_done_upto.size(); ++g)
      if (group_size[g] > 0 && !GroupStepDone(static_cast<int32_t>(g), step)) return false;
    return true;
  }
  // Records that one actor of `group` finished `step` (start/end in seconds since origin) and
  // wakes actors waiting for the group.
  void FinishGroupStep(int32_t group, int64_t step, double start_s, double end_s);
  // The links between two hosts (cached).
  const std::vector<simgrid::s4u::Link*>& Route(simgrid::s4u::Host* a, simgrid::s4u::Host* b);
  // Bytes above which an MPI message from a to b goes by rendezvous (sim/mpi_protocol.h's rule:
  // --mpi-eager-limit, else the route's links, else 65536 for a `collective`'s rounds and none for
  // tensor transfers); 0 (none) when a == b.
  int64_t EagerLimit(simgrid::s4u::Host* a, simgrid::s4u::Host* b, bool collective);
  // Factor on the compute of `partition`'s instance for replica r in `step`: stragglers and
  // compute noise (sim/step_variation.h) on worker partitions, 1 on parameter servers'.
  double Slowdown(int32_t partition, int32_t replica, int64_t step) const;
};

// Body of the actor for `slot` (an index into state->slots).
void RunDeviceActor(ReplayState* state, int32_t slot);

// Runs the collective `node` of `step` for the replica of `slot` (sim/allreduce_replay.cc):
// the rounds of the algorithm Open MPI selects, as SimGrid Comms to and from the other replicas'
// actors, and the reductions as Execs at the device's memory bandwidth. Blocks the actor.
void RunAllreduce(ReplayState* state, const ActorSlot& slot, const SimNode& node, int64_t step);

}  // namespace fb::sim
