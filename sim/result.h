#pragma once
// What a simulation predicts (sim/simulator.h): step times, traffic per link, device
// utilisation and, when asked for, one event per node execution and transfer.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/trace/trace_schema.h"

namespace fb::sim {

// One executed node or transfer, in simulated seconds since the start of the simulation.
struct SimEvent {
  EventKind kind = EventKind::kCompute;
  int32_t device = 0;       // platform device index
  int32_t peer_device = -1;  // send/recv: the other end
  int32_t partition = 0, node = 0;
  int32_t replica = 0;      // -1 for shared (sync parameter-server) instances
  int64_t step = 0;
  double start_s = 0, end_s = 0;
  int64_t bytes = 0;
};

// A step of one group of actors: replica r (rank r) or the shared parameter servers of a
// synchronous run (rank -1).
struct SimStep {
  int64_t step = 0;
  int32_t rank = 0;
  double start_s = 0, end_s = 0;
};

struct SimResult {
  std::vector<SimStep> steps;
  // Duration of each training step: in sync runs the time between consecutive parameter
  // updates (the first from time 0); otherwise every replica step's end - start.
  std::vector<double> step_times_s;
  double makespan_s = 0;
  int64_t node_executions = 0;  // nodes run by all simulated devices (incl. _Send/_Recv)
  int64_t transfers = 0;        // messages sent
  int64_t wire_bytes = 0;       // bytes put on the network (after compression)
  int64_t dropped_messages = 0;  // gradients ignored by backup-worker gathers
  int64_t control_messages = 0;  // run requests and done replies sent (sim/control_plane.h)
  std::map<std::string, int64_t> link_bytes;    // SimGrid link name -> bytes crossing it
  std::vector<std::string> device_names;        // platform device index -> role name
  std::vector<std::string> device_types;
  std::vector<double> device_busy_s;            // compute time per device
  // Memory (sim/memory_plan.h): peak bytes in use per device, and its capacity (0: undeclared).
  std::vector<int64_t> device_peak_bytes, device_capacity_bytes;
  std::string allreduce_algorithm;              // --mode allreduce: what the collective ran
  std::vector<SimEvent> events;                 // when recorded
  double wall_s = 0;          // wall-clock time of the replay (SimGrid run)
  double prepare_wall_s = 0;  // wall-clock time of placement, partitioning and compilation

  double MedianStepTime() const;
  double Utilisation(int device) const {
    return makespan_s > 0 ? device_busy_s[static_cast<size_t>(device)] / makespan_s : 0;
  }
};

}  // namespace fb::sim
