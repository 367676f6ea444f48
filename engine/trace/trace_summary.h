#pragma once
// Summary statistics of a trace for `flowbench trace summary`: time per op type, busy time per
// device and step-time statistics. All times in ns.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/trace/trace_reader.h"

namespace fb {

struct OpTypeTime {
  std::string op;
  int64_t count = 0;
  int64_t total_ns = 0;  // sum of event durations
  double fraction = 0;   // total_ns / sum over all op types
};

struct DeviceBusyTime {
  std::string device;
  int64_t events = 0;
  int64_t busy_ns = 0;  // length of the union of the device's event intervals
  int64_t span_ns = 0;  // last event end - first event start
};

struct StepTimeStats {
  int64_t count = 0;
  double median_ns = 0, mean_ns = 0;
  int64_t min_ns = 0, max_ns = 0;
};

struct TraceSummary {
  std::vector<OpTypeTime> ops;  // by total time, largest first
  std::vector<DeviceBusyTime> devices;  // in device id order
  StepTimeStats steps;  // from /steps; from each step's events when /steps is empty
  int64_t total_event_ns = 0;
};

TraceSummary SummarizeTrace(const Trace& trace);

// Three text tables: the `top` op types, device busy time (with utilisation = busy / span), and
// step-time statistics.
std::string FormatTraceSummary(const TraceSummary& summary, int top);

// The typical steps of a trace: those of /steps whose duration lies between the
// (0.5 - band/2) and (0.5 + band/2) quantiles (at least the median step; every step for
// band >= 1). Node durations within a step are correlated (a step slowed by a busy machine is
// slow everywhere), so per-node statistics over all steps do not compose into the median step;
// over the typical steps they do (the simulator's measured cost model, sim/sim_costs.h).
std::set<int64_t> TypicalSteps(const Trace& trace, double band = 0.2);

// Median of `values` (mean of the two middle values for an even count); 0 for none.
double Median(std::vector<int64_t> values);

}  // namespace fb
