#pragma once
// Devices that share one machine's cores (4 CPU devices of one process, the ranks of an MPI job
// or the hosts of an emulated cluster on one 2-core machine). SimGrid's way: the machine is a
// multi-core host (`core="C"`, speed = one core's FLOP/s, device_type "none"), and every device
// host that lives on it names it in the property `shares_cores_with`; the device keeps its own
// host, links and routes, but its executions run on the machine's cores:
//
//   <host id="machine" speed="40Gf" core="2"><prop id="device_type" value="none"/></host>
//   <host id="cpu0" speed="40Gf">
//     <prop id="shares_cores_with" value="machine"/>
//     <prop id="exec_threads" value="1"/>        cores one execution may use (default 1)
//     ...
//   </host>
//
// An execution of s seconds on its device alone (what the cost model gives for the device's
// speed) becomes T = min(exec_threads, C) Execs of s x core speed FLOPs on the machine (its
// threads), each at most one core: alone it takes s; N one-thread executions on C < N cores
// share the cores fairly (each gets C/N of a core), as an OS scheduler shares them; with N <= C
// each gets a core.
// A device without `shares_cores_with` computes on its own host, as before.
//
// Waiting ranks take CPU too (`wait_core_weight`, dimensionless, in [0, 8], default 0): an MPI
// rank whose device is not computing still polls for messages (flowbench's progress thread and
// the thread driving progress in a Session::Run, mpi/mpi_transport_progress.cc: MPI_Testsome in
// a loop with a sched_yield every 10 us, for 5 ms after the last message). While none of a
// device's actors computes, the device has one polling Exec on the machine, at most one core,
// sharing the cores with weight `wait_core_weight` against 1 for each computing thread (SimGrid's
// Exec priority; above 1: a rank polling with more than one thread). With N threads computing
// and K devices waiting on C cores, each computing thread gets min(1, C / (N + K w)) of a core
// while w times that is at most one core; a core nobody computes on is taken by pollers without
// slowing anyone (2 ranks on 2 cores are unchanged). 0: waiting is free (the model before). The
// value `flowbench sim-platform mpi-node|emulated` writes, kMpiWaitCoreWeight, was measured on
// this machine (docs/simulator.md, "Shared cores: waiting ranks").
#include <simgrid/forward.h>

#include <memory>

#include "engine/framework/status.h"

namespace fb::sim {

struct SimDevice;

// A device's polling during one replay (WaitPollingScope, ExecuteOnDevice): its live actors,
// those computing now, and the daemon actor that polls while none computes.
struct WaitPolling {
  int actors = 0;
  int computing = 0;
  simgrid::s4u::ActorPtr poller;  // alive while actors > 0; suspended while any computes
};

// Where a device's executions run.
struct CoreShare {
  simgrid::s4u::Host* machine = nullptr;  // null: the device's own host
  int exec_threads = 1;                   // cores one execution may use, >= 1
  double wait_weight = 0;                 // wait_core_weight; > 0 only with a machine
  std::shared_ptr<WaitPolling> polling;   // set when wait_weight > 0 (shared by copies)
};

// Reads `shares_cores_with`, `exec_threads` and `wait_core_weight` of `host` in the platform
// loaded into `engine`. InvalidArgument naming the host and the property when shares_cores_with
// names no host of the platform or the host itself, when exec_threads is not an integer in [1,
// 65536], when wait_core_weight is not a number in [0, 8], or when exec_threads or
// wait_core_weight is given without shares_cores_with.
StatusOr<CoreShare> ReadCoreShare(const simgrid::s4u::Host& host,
                                  const simgrid::s4u::Engine& engine);

// Runs, in the calling actor, `flops` of compute at the speed of `device` (seconds on the
// device alone: flops / its peak FLOP/s): on the device's host, or on the machine whose cores
// it shares (above). Blocks the actor until done. The device's polling, if any, pauses meanwhile.
void ExecuteOnDevice(const SimDevice& device, double flops);

// Marks the calling actor as one of `device`'s actors for its lifetime: while the device has
// actors and none of them computes, it polls (wait_core_weight, above). The first scope of a
// replay starts the device's poller (a daemon actor: it never keeps the simulation alive), the
// last one kills it. Does nothing for a device with wait_core_weight 0. Not copyable.
class WaitPollingScope {
 public:
  explicit WaitPollingScope(const SimDevice& device);
  ~WaitPollingScope();
  WaitPollingScope(const WaitPollingScope&) = delete;
  WaitPollingScope& operator=(const WaitPollingScope&) = delete;

 private:
  const SimDevice& device_;
};

}  // namespace fb::sim
