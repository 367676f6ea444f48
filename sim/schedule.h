#pragma once
// Ready-queue policies of the simulated executor (whitepaper 3.2.2 and 5.2). A policy sets
// SimNode::priority (the device runs the ready node with the highest priority; ties in the order
// nodes became ready) and SimNode::alap_start_s:
//   fifo           as the engine's executor: inexpensive nodes (transfers, and kernels under
//                  its 2 us threshold) first, as it runs them inline on the thread that made them
//                  ready, then the others; each in the order they became ready.
//   critical-path  priority = bottom level: the longest compute + estimated transfer path from
//                  the node to the end of the step (list scheduling, Kwok & Ahmad 1999).
//   alap-recv      critical-path order, and every transfer is started as late as possible
//                  (whitepaper 5.2): a _Send issues its data no earlier than the latest start of
//                  the _Recv in the static schedule (makespan - bottom level), measured from the
//                  start of the step.
// Registry: REGISTER_SIM_SCHEDULE(name, fn) adds a policy.
#include <functional>
#include <string>
#include <vector>

#include "engine/framework/status.h"
#include "sim/program.h"

namespace fb::sim {

using SchedulePolicy = std::function<void(SimProgram*)>;

// Applies the policy named `name`; NotFound listing the known policies.
Status ApplySchedule(const std::string& name, SimProgram* program);
std::vector<std::string> ScheduleNames();
// Whether the policy delays transfers to their ALAP start (alap-recv).
bool ScheduleDelaysTransfers(const std::string& name);

// Bottom level of every node (seconds), indexed [partition][node]: compute_s plus the longest
// path below it, transfers counting their estimated_s. Also returns the makespan of the static
// schedule (max bottom level) through `makespan_s` when non-null.
std::vector<std::vector<double>> BottomLevels(const SimProgram& program, double* makespan_s);

struct ScheduleRegistrar {
  ScheduleRegistrar(const std::string& name, SchedulePolicy policy, bool delays_transfers);
};
#define REGISTER_SIM_SCHEDULE(name, fn, delays)                                       \
  static ::fb::sim::ScheduleRegistrar FB_CONCAT(fb_sim_schedule_, __COUNTER__)(name, fn, \
                                                                               delays)

}  // namespace fb::sim
