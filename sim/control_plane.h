#pragma once
// The distributed runtime's control plane in the replay (issue 18; mpi/master.h,
// mpi/control_message.h): each step the master (rank 0, the host of the first role device:
// parameter server 0, or worker 0 without parameter servers) sends one "run" request to every
// other host that runs a partition of the step, and each of them sends a "done" reply when its
// partition has finished. With SimRunOptions::control_plane these are SimGrid Comms over the
// platform's route between the two hosts (sharing its links with the tensors), each handled by
// the receiving host's message queue (sim/message_cost.h):
//   - an actor on another host starts its step when the run request has been delivered (the
//     request leaves the master when the step starts: in a synchronous run when every actor has
//     finished the previous step, as the master's client loop does; otherwise when the actor's
//     replica has);
//   - its step ends for the master when its done reply has been delivered.
// Actors on the master's host exchange nothing. The compact binary run and done messages of an
// untraced step are 27 bytes each (mpi/control_message.h). A measured dispatch/completion
// latency (SimCosts::dispatch_s) is still added after the run request and before the done reply
// (it then counts its one-host message latency twice: ~0.1 ms on this machine). Allreduce runs
// have no master step loop and exchange no control messages.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/framework/status.h"

namespace simgrid::s4u {
class Host;
}

namespace fb::sim {

struct ReplayState;
struct SimDevice;

inline constexpr int64_t kRunRequestBytes = 27;
inline constexpr int64_t kDoneReplyBytes = 27;

struct ControlPlane {
  bool enabled = false;
  int master_device = -1;  // platform device index of rank 0
  simgrid::s4u::Host* master_host = nullptr;
  bool global_gate = false;  // synchronous: a step starts when the whole previous one is done
};

// The control plane of a replay whose actors run on `used_devices` (platform indices), with the
// master on `master_device`. InvalidArgument naming the platform file and both hosts when a host
// has no route to or from the master's.
StatusOr<ControlPlane> MakeControlPlane(const std::vector<SimDevice>& devices, int master_device,
                                        const std::vector<int>& used_devices, bool synchronous,
                                        const std::string& platform_path);

// Blocks the calling actor, which runs on `device`, until the master's run request has crossed
// the route from the master's host and been handled on this host. Returns at once when the
// control plane is off or `device` is on the master's host.
void ReceiveRunRequest(ReplayState* st, int device);
// Blocks the calling actor until its done reply has reached the master's host and been handled
// there. Returns at once when the control plane is off or `device` is on the master's host.
void SendDoneReply(ReplayState* st, int device);

}  // namespace fb::sim
