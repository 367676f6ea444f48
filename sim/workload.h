#pragma once
// Workloads (whitepaper section 7 and 4.3): how one replica's graph is spread over the platform.
//
// Data parallelism with parameter servers: the first `ps` devices of the platform are parameter
// servers ("/job:ps/replica:0/task:k"), the next replicas * devices_per_replica devices hold the
// replicas ("/job:worker/replica:0/task:r"). Variables are assigned round-robin to the parameter
// servers (TensorFlow's replica_device_setter); their reference consumers (the Apply* updates)
// follow them through the engine's colocation rule; everything else is constrained to the
// worker job. One replica's graph is placed and partitioned by the engine (PlaceGraph,
// Partition) and replicated: every replica runs the same worker partitions.
//   sync       the parameter-server partitions run once per step for all replicas: each
//              gradient _Recv gathers one tensor per replica (summing them costs
//              (n - 1) * bytes / memory bandwidth) and every parameter _Send goes to all
//              replicas; a replica's next step needs the parameters of the next step.
//   backup:B   sync, but the gather proceeds with the first replicas - B gradients (the rest are
//              dropped), as with backup workers (Chen et al. 2016, "Revisiting distributed
//              synchronous SGD").
//   async      every replica has its own instance of the parameter-server partitions and never
//              waits for the others (Downpour SGD, Dean et al. 2012).
//   allreduce  no parameter servers (ps = 0): every replica holds the Variables on its one
//              device and one fused allreduce of the gradients per step precedes the updates,
//              as `dist-train --mode allreduce` (sim/allreduce_program.h, sim/allreduce_model.h).
// With ps = 0 and replicas = 1, the whole platform is available to the placer (model
// parallelism on one node).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/framework/status.h"
#include "engine/graph/graph.h"
#include "engine/placement/device_desc.h"
#include "sim/allreduce_model.h"
#include "sim/platform.h"

namespace fb::sim {

enum class SyncMode { kSync, kAsync, kAllreduce };

struct WorkloadOptions {
  int replicas = 1;
  int ps = 0;
  SyncMode mode = SyncMode::kSync;
  int backup_workers = 0;      // sync: gradients the parameter servers do not wait for
  int devices_per_replica = 0;  // 0: all non-PS devices when replicas == 1, else 1
  int steps = 1;
  int concurrent_steps = 1;     // steps of one replica in flight at once (section 7, Figure 8)
  bool compression = false;     // lossy 32->16 bit transfers (whitepaper 5.5)
  double straggler_probability = 0;  // per (replica, step): slowed down with this probability
  double straggler_slowdown = 1;     // ... by this factor (compute times multiplied)
  // Compute noise and start offsets (sim/step_variation.h): a worker step's compute times 1 + E,
  // E exponential with this mean (0: off); replica r starts r * start_spread_s / replicas late.
  double compute_noise_mean = 0;
  double start_spread_s = 0;
  uint64_t seed = 0;
  std::string schedule = "fifo";
  std::string placer;          // "" = the engine's default placer
  uint64_t placer_seed = 0;    // seed of the "random" placer (engine/placement/placer.h)
  AllreduceChoice allreduce;   // kAllreduce: which algorithm the collective runs
  // `flowbench sim --mpi-eager-limit`: MPI messages between hosts above a route's eager limit go
  // by rendezvous (sim/mpi_protocol.h). kEagerLimitFromPlatform: the links' mpi_eager_limit
  // property (allreduce rounds: 65536 without one); B >= 0: B on every route (0: none).
  int64_t mpi_eager_limit_bytes = kEagerLimitFromPlatform;
};

inline constexpr int kMaxBackupWorkers = 1000000;        // backup:B
inline constexpr double kMaxStragglerSlowdown = 1e6;     // --stragglers P:F, F at most

// Parses "sync", "async", "allreduce" or "backup:B" (0 <= B <= kMaxBackupWorkers) into mode and
// backup_workers. InvalidArgument otherwise.
Status ParseSyncMode(const std::string& text, WorkloadOptions* options);
// Parses "P:F" (probability, slowdown factor) into the straggler fields. InvalidArgument naming
// the text for a malformed value, P outside [0, 1] or F outside [1, kMaxStragglerSlowdown] (a
// larger factor overflows the simulated clock).
Status ParseStragglers(const std::string& text, WorkloadOptions* options);

// Which platform device plays which role.
struct RoleAssignment {
  DeviceSet placement_devices;      // what the placer sees: PS devices, then replica 0's devices
  std::vector<int> ps_platform;     // platform device index of PS k
  // platform device index of template device j (index into placement_devices) for replica r:
  // replica_platform[r][j]; PS devices map to themselves for every replica.
  std::vector<std::vector<int>> replica_platform;
  std::vector<bool> is_ps;          // per placement device
};

// Assigns roles. InvalidArgument when the platform has too few devices, replicas < 1, ps < 0,
// backup_workers >= replicas, concurrent_steps < 1, steps < 1 or an eager limit outside
// [0, kMaxEagerLimitBytes], and in allreduce mode for parameter servers or concurrent steps.
StatusOr<RoleAssignment> AssignRoles(const std::vector<SimDevice>& platform,
                                     const WorkloadOptions& options);

// Sets requested devices for data parallelism with parameter servers (Variables round-robin,
// those one op updates together, such as a weight and its Adam slots, on one PS; ops updating
// them through ref inputs left to colocation, the rest on /job:worker); a no-op
// without parameter servers. Nodes with a requested device keep it.
void ConstrainForParameterServers(Graph* g, int num_ps);

}  // namespace fb::sim
