#include "sim/core_sharing.h"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/core_sharing_platform.h"
#include "sim/platform.h"

namespace sg4 = simgrid::s4u;

namespace fb::sim {
namespace {

constexpr long kMaxExecThreads = 65536;
// The poller's Execs: an hour of one core each, renewed forever (the actor is a daemon).
constexpr double kPollChunkS = 3600;

StatusOr<double> ReadWaitWeight(const sg4::Host& host, const char* machine) {
  const char* text = host.get_property("wait_core_weight");
  if (text == nullptr) return 0.0;
  if (machine == nullptr)
    return InvalidArgument("host '", host.get_name(),
                           "': property wait_core_weight needs shares_cores_with (a waiting "
                           "device on its own host takes no core from another)");
  errno = 0;
  char* end = nullptr;
  const double w = std::strtod(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !(w >= 0 && w <= kMaxWaitCoreWeight))
    return InvalidArgument("host '", host.get_name(),
                           "': property wait_core_weight must be a number in [0, ",
                           kMaxWaitCoreWeight, "] (a waiting rank's weight in the sharing of the "
                           "cores, against 1 for a computing thread), got '", text, "'");
  return w;
}

}  // namespace

StatusOr<CoreShare> ReadCoreShare(const sg4::Host& host, const sg4::Engine& engine) {
  CoreShare share;
  const char* machine = host.get_property("shares_cores_with");
  const char* threads = host.get_property("exec_threads");
  if (machine != nullptr) {
    share.machine = engine.host_by_name_or_null(machine);
    if (share.machine == nullptr)
      return InvalidArgument("host '", host.get_name(),
                             "': property shares_cores_with names host '", machine,
                             "', which the platform does not have");
    if (share.machine == &host)
      return InvalidArgument("host '", host.get_name(),
                             "': property shares_cores_with names the host itself; expected the "
                             "multi-core host of the machine it runs on");
  }
  if (threads != nullptr) {
    if (machine == nullptr)
      return InvalidArgument("host '", host.get_name(),
                             "': property exec_threads needs shares_cores_with (a device on its "
                             "own host computes at its speed)");
    errno = 0;
    char* end = nullptr;
    const long v = std::strtol(threads, &end, 10);
    if (end == threads || *end != '\0' || errno == ERANGE || v < 1 || v > kMaxExecThreads)
      return InvalidArgument("host '", host.get_name(),
                             "': property exec_threads must be an integer in [1, ",
                             kMaxExecThreads, "], got '", threads, "'");
    share.exec_threads = static_cast<int>(v);
  }
  ASSIGN_OR_RETURN(share.wait_weight, ReadWaitWeight(host, machine));
  if (share.wait_weight > 0) share.polling = std::make_shared<WaitPolling>();
  return share;
}

void ExecuteOnDevice(const SimDevice& device, double flops) {
  if (device.cores.machine == nullptr) {
    sg4::this_actor::execute(flops);
    return;
  }
  // One Exec per thread, each of seconds_alone on one core: a multi-core host gives an Exec at
  // most one core (SimGrid 3.32's set_thread_count does not raise that bound), and the threads
  // of all executions share the cores max-min fairly, as the OS shares them.
  sg4::Host* machine = device.cores.machine;
  const int threads = std::min(device.cores.exec_threads, machine->get_core_count());
  const double core_flops = flops / device.desc.peak_flops_per_s * machine->get_speed();
  std::vector<sg4::ExecPtr> execs;
  for (int t = 0; t < threads; ++t)
    execs.push_back(sg4::this_actor::exec_init(core_flops)->set_host(machine));
  WaitPolling* polling = device.cores.polling.get();
  if (polling != nullptr && polling->computing++ == 0 && polling->poller)
    polling->poller->suspend();
  for (const sg4::ExecPtr& e : execs) e->start();
  for (const sg4::ExecPtr& e : execs) e->wait();
  if (polling != nullptr && --polling->computing == 0 && polling->poller)
    polling->poller->resume();
}

WaitPollingScope::WaitPollingScope(const SimDevice& device) : device_(device) {
  WaitPolling* polling = device.cores.polling.get();
  if (polling == nullptr || polling->actors++ > 0) return;
  sg4::Host* machine = device.cores.machine;
  const double weight = device.cores.wait_weight;
  polling->computing = 0;
  polling->poller = sg4::Actor::create("poll:" + device.host_name, device.host, [machine, weight] {
    for (;;) {
      sg4::ExecPtr e = sg4::this_actor::exec_init(kPollChunkS * machine->get_speed());
      e->set_host(machine);
      e->set_priority(weight);
      e->start();
      e->wait();
    }
  });
  polling->poller->daemonize();
}

WaitPollingScope::~WaitPollingScope() {
  WaitPolling* polling = device_.cores.polling.get();
  if (polling == nullptr || --polling->actors > 0) return;
  if (polling->poller) polling->poller->kill();
  polling->poller = nullptr;
}

}  // namespace fb::sim
