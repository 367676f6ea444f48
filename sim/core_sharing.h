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
#include "engine/framework/status.h"

namespace simgrid::s4u {
class Host;
class Engine;
}  // namespace simgrid::s4u

namespace fb::sim {

struct SimDevice;

// Where a device's executions run.
struct CoreShare {
  simgrid::s4u::Host* machine = nullptr;  // null: the device's own host
  int exec_threads = 1;                   // cores one execution may use, >= 1
};

// Reads `shares_cores_with` and `exec_threads` of `host` in the platform loaded into `engine`.
// InvalidArgument naming the host and the property when shares_cores_with names no host of the
// platform or the host itself, when exec_threads is not an integer in [1, 65536], or when
// exec_threads is given without shares_cores_with.
StatusOr<CoreShare> ReadCoreShare(const simgrid::s4u::Host& host,
                                  const simgrid::s4u::Engine& engine);

// Runs, in the calling actor, `flops` of compute at the speed of `device` (seconds on the
// device alone: flops / its peak FLOP/s): on the device's host, or on the machine whose cores
// it shares (above). Blocks the actor until done.
void ExecuteOnDevice(const SimDevice& device, double flops);

}  // namespace fb::sim
