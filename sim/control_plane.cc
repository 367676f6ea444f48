#include "sim/control_plane.h"

#include <simgrid/s4u.hpp>

#include "sim/platform.h"
#include "sim/replay_state.h"

namespace sg4 = simgrid::s4u;

namespace fb::sim {
namespace {

// Whether `a` reaches `b` (an empty route without latency is none, as in Simulation::CheckRoutes).
bool HasRoute(sg4::Host* a, sg4::Host* b, std::string* why) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  try {
    a->route_to(b, links, &latency);
  } catch (const std::exception& e) {
    *why = std::string(": ") + e.what();
    return false;
  }
  return !links.empty() || latency > 0;
}

// Sends a control message of `bytes` from `from` to `to` (platform device `to_device`) and
// blocks until it has arrived and been handled there.
void Deliver(ReplayState* st, sg4::Host* from, sg4::Host* to, int to_device, int64_t bytes) {
  sg4::Comm::sendto(from, to, static_cast<uint64_t>(bytes));
  for (sg4::Link* l : st->Route(from, to)) st->link_bytes[l] += bytes;
  const double now = sg4::Engine::get_clock();
  const double handled = st->messages.Handle(to_device, now, bytes);
  if (handled > now) sg4::this_actor::sleep_for(handled - now);
  ++st->result->control_messages;
}

}  // namespace

StatusOr<ControlPlane> MakeControlPlane(const std::vector<SimDevice>& devices, int master_device,
                                        const std::vector<int>& used_devices, bool synchronous,
                                        const std::string& platform_path) {
  if (master_device < 0 || static_cast<size_t>(master_device) >= devices.size())
    return InvalidArgument("control plane: master device ", master_device, " is not one of the ",
                           devices.size(), " devices of platform file '", platform_path, "'");
  ControlPlane c;
  c.enabled = true;
  c.master_device = master_device;
  c.master_host = devices[master_device].host;
  c.global_gate = synchronous;
  for (int d : used_devices) {
    sg4::Host* h = devices[d].host;
    if (h == c.master_host) continue;
    for (auto [a, b] : {std::pair{c.master_host, h}, std::pair{h, c.master_host}}) {
      std::string why;
      if (!HasRoute(a, b, &why))
        return InvalidArgument("platform file '", platform_path, "': no route from host '",
                               a->get_name(), "' to host '", b->get_name(), "'", why,
                               " (the master's run requests and the done replies cross it)");
    }
  }
  return c;
}

void ReceiveRunRequest(ReplayState* st, int device) {
  if (!st->control.enabled) return;
  sg4::Host* h = (*st->devices)[device].host;
  if (h == st->control.master_host) return;
  Deliver(st, st->control.master_host, h, device, kRunRequestBytes);
}

void SendDoneReply(ReplayState* st, int device) {
  if (!st->control.enabled) return;
  sg4::Host* h = (*st->devices)[device].host;
  if (h == st->control.master_host) return;
  Deliver(st, h, st->control.master_host, st->control.master_device, kDoneReplyBytes);
}

}  // namespace fb::sim
