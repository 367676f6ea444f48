#include "engine/trace/trace_summary.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include <fmt/format.h>

namespace fb {

double Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? static_cast<double>(v[n / 2])
               : (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2.0;
}

namespace {

// a + b, saturating at the int64 range (sums of many long durations of a corrupt trace).
int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

std::vector<OpTypeTime> OpTimes(const Trace& t, int64_t* total) {
  std::map<int32_t, OpTypeTime> by_op;
  *total = 0;
  for (const EventRecord& e : t.events) {
    OpTypeTime& o = by_op[e.op_type];
    ++o.count;
    o.total_ns = SaturatingAdd(o.total_ns, e.end_ns - e.start_ns);
    *total = SaturatingAdd(*total, e.end_ns - e.start_ns);
  }
  std::vector<OpTypeTime> ops;
  for (auto& [id, o] : by_op) {
    o.op = t.str(id);
    o.fraction = *total > 0 ? static_cast<double>(o.total_ns) / *total : 0;
    ops.push_back(o);
  }
  std::stable_sort(ops.begin(), ops.end(),
                   [](const OpTypeTime& a, const OpTypeTime& b) { return a.total_ns > b.total_ns; });
  return ops;
}

DeviceBusyTime BusyTime(std::vector<std::pair<int64_t, int64_t>> intervals) {
  DeviceBusyTime d;
  d.events = static_cast<int64_t>(intervals.size());
  if (intervals.empty()) return d;
  std::sort(intervals.begin(), intervals.end());
  int64_t cur_start = intervals[0].first, cur_end = intervals[0].second, last_end = cur_end;
  for (const auto& [s, e] : intervals) {
    last_end = std::max(last_end, e);
    if (s > cur_end) {
      d.busy_ns = SaturatingAdd(d.busy_ns, cur_end - cur_start);
      cur_start = s;
      cur_end = e;
    } else {
      cur_end = std::max(cur_end, e);
    }
  }
  d.busy_ns = SaturatingAdd(d.busy_ns, cur_end - cur_start);
  d.span_ns = last_end - intervals[0].first;
  return d;
}

StepTimeStats StepTimes(const Trace& t) {
  std::vector<int64_t> durations;
  if (!t.steps.empty()) {
    for (const StepRecord& s : t.steps) durations.push_back(s.end_ns - s.start_ns);
  } else {
    std::map<int64_t, std::pair<int64_t, int64_t>> span;  // step -> (first start, last end)
    for (const EventRecord& e : t.events) {
      auto [it, inserted] = span.emplace(e.step, std::make_pair(e.start_ns, e.end_ns));
      it->second.first = std::min(it->second.first, e.start_ns);
      it->second.second = std::max(it->second.second, e.end_ns);
    }
    for (const auto& [step, se] : span) durations.push_back(se.second - se.first);
  }
  StepTimeStats st;
  st.count = static_cast<int64_t>(durations.size());
  if (durations.empty()) return st;
  st.median_ns = Median(durations);
  st.mean_ns = std::accumulate(durations.begin(), durations.end(), 0.0) / durations.size();
  st.min_ns = *std::min_element(durations.begin(), durations.end());
  st.max_ns = *std::max_element(durations.begin(), durations.end());
  return st;
}

}  // namespace

TraceSummary SummarizeTrace(const Trace& t) {
  TraceSummary s;
  s.ops = OpTimes(t, &s.total_event_ns);
  std::vector<std::vector<std::pair<int64_t, int64_t>>> per_device(t.devices.size());
  for (const EventRecord& e : t.events)
    if (e.device >= 0) per_device[e.device].push_back({e.start_ns, e.end_ns});
  for (size_t d = 0; d < per_device.size(); ++d) {
    DeviceBusyTime busy = BusyTime(std::move(per_device[d]));
    busy.device = t.device_name(static_cast<int32_t>(d));
    s.devices.push_back(busy);
  }
  s.steps = StepTimes(t);
  return s;
}

std::string FormatTraceSummary(const TraceSummary& s, int top) {
  std::string out = fmt::format("{:<32} {:>8} {:>12} {:>12} {:>7}\n", "op type", "count",
                                "total ms", "mean us", "% time");
  for (size_t i = 0; i < s.ops.size() && static_cast<int>(i) < top; ++i) {
    const OpTypeTime& o = s.ops[i];
    out += fmt::format("{:<32} {:>8} {:>12.3f} {:>12.3f} {:>6.1f}%\n", o.op, o.count,
                       o.total_ns / 1e6, o.count ? o.total_ns / 1e3 / o.count : 0.0,
                       100 * o.fraction);
  }
  if (static_cast<int>(s.ops.size()) > top)
    out += fmt::format("({} more op types)\n", s.ops.size() - top);
  out += fmt::format("\n{:<48} {:>8} {:>12} {:>12} {:>7}\n", "device", "events", "busy ms",
                     "span ms", "util");
  for (const DeviceBusyTime& d : s.devices)
    out += fmt::format("{:<48} {:>8} {:>12.3f} {:>12.3f} {:>6.1f}%\n", d.device, d.events,
                       d.busy_ns / 1e6, d.span_ns / 1e6,
                       d.span_ns > 0 ? 100.0 * d.busy_ns / d.span_ns : 0.0);
  const StepTimeStats& st = s.steps;
  out += fmt::format("\nsteps: {}  median {:.3f} ms  mean {:.3f} ms  min {:.3f} ms  max {:.3f} ms\n",
                     st.count, st.median_ns / 1e6, st.mean_ns / 1e6, st.min_ns / 1e6,
                     st.max_ns / 1e6);
  return out;
}

std::set<int64_t> TypicalSteps(const Trace& trace, double band) {
  std::vector<std::pair<int64_t, int64_t>> by_time;  // (duration, step)
  for (const StepRecord& r : trace.steps) by_time.emplace_back(r.end_ns - r.start_ns, r.step);
  std::set<int64_t> steps;
  if (by_time.empty()) return steps;
  std::sort(by_time.begin(), by_time.end());
  const double n = static_cast<double>(by_time.size());
  const double lo = std::clamp(0.5 - band / 2, 0.0, 1.0) * n;
  const double hi = std::clamp(0.5 + band / 2, 0.0, 1.0) * n;
  for (size_t i = static_cast<size_t>(lo); i < by_time.size() && static_cast<double>(i) < hi; ++i)
    steps.insert(by_time[i].second);
  steps.insert(by_time[by_time.size() / 2].second);
  return steps;
}

}  // namespace fb
