#pragma once
// What a real run spends outside its kernels, measured from its trace (engine/trace), for the
// simulator's measured cost model (sim_costs.h) alongside the per-node compute medians:
//   transfer delivery  per _Send/_Recv pair (matched by name: "<key>/send", "<key>/recv", as the
//                      partitioner names them): receive end - send start, mean over the
//                      steps. It includes what the transport adds to the wire time (message
//                      headers, the progress thread's polling, CPU contention with the
//                      kernels); when the receiver was still busy the sample is longer than the
//                      wire time, but then the replay is busy at that point too.
//   dispatch           per device: first event start - step start, mean over the steps (the
//                      master's "run" request reaching the device's task, whitepaper 3.2.2).
//   completion         per device: step end - last event end, mean (its "done" reaching the
//                      master and the client returning).
// Times need one clock across ranks (CLOCK_REALTIME of one machine; across machines the skew
// adds to transfer samples). Single-process traces whose /steps were derived from their events
// give dispatch = completion = 0 on the device that starts and ends each step.
#include <map>
#include <set>
#include <string>

#include "engine/trace/trace_reader.h"

namespace fb::sim {

struct MeasuredLatencies {
  std::map<std::string, double> transfer_s;    // by _Send node name
  std::map<std::string, double> dispatch_s;    // by device name
  std::map<std::string, double> completion_s;  // by device name
};

// Over every step, or only over `steps` when given (e.g. TypicalSteps, trace_summary.h).
MeasuredLatencies MeasureLatencies(const Trace& trace, const std::set<int64_t>* steps = nullptr);

}  // namespace fb::sim
