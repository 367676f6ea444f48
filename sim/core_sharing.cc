#include "sim/core_sharing.h"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/platform.h"

namespace sg4 = simgrid::s4u;

namespace fb::sim {
namespace {

constexpr long kMaxExecThreads = 65536;

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
  for (const sg4::ExecPtr& e : execs) e->start();
  for (const sg4::ExecPtr& e : execs) e->wait();
}

}  // namespace fb::sim
