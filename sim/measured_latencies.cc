#include "sim/measured_latencies.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <vector>

namespace fb::sim {
namespace {

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

// "<key>/send" -> "<key>" (kind send) and likewise for "/recv"; "" otherwise.
std::string TransferKey(const std::string& node, const char* suffix) {
  const std::string s = suffix;
  if (node.size() <= s.size() || node.compare(node.size() - s.size(), s.size(), s) != 0) return "";
  return node.substr(0, node.size() - s.size());
}

bool Wanted(const std::set<int64_t>* steps, int64_t step) { return !steps || steps->count(step); }

void MeasureTransfers(const Trace& trace, const std::set<int64_t>* steps, MeasuredLatencies* out) {
  // (step, key) -> send start; then each receive end gives one sample.
  std::map<std::pair<int64_t, std::string>, int64_t> sent;
  for (const EventRecord& e : trace.events)
    if (e.kind == static_cast<int32_t>(EventKind::kSend) && Wanted(steps, e.step))
      if (std::string k = TransferKey(trace.str(e.node), "/send"); !k.empty())
        sent[{e.step, k}] = e.start_ns;
  std::map<std::string, std::vector<double>> samples;
  for (const EventRecord& e : trace.events) {
    if (e.kind != static_cast<int32_t>(EventKind::kRecv) || !Wanted(steps, e.step)) continue;
    const std::string k = TransferKey(trace.str(e.node), "/recv");
    auto it = sent.find({e.step, k});
    if (k.empty() || it == sent.end()) continue;
    samples[k + "/send"].push_back(std::max<int64_t>(0, e.end_ns - it->second) * 1e-9);
  }
  for (auto& [send, v] : samples) out->transfer_s[send] = Mean(v);
}

void MeasureControlPlane(const Trace& trace, const std::set<int64_t>* wanted,
                         MeasuredLatencies* out) {
  std::unordered_map<int64_t, const StepRecord*> steps;
  for (const StepRecord& s : trace.steps)
    if (Wanted(wanted, s.step)) steps.emplace(s.step, &s);
  // (device, step) -> first start, last end.
  std::map<std::pair<int32_t, int64_t>, std::pair<int64_t, int64_t>> span;
  for (const EventRecord& e : trace.events) {
    auto [it, fresh] = span.try_emplace({e.device, e.step}, e.start_ns, e.end_ns);
    if (fresh) continue;
    it->second.first = std::min(it->second.first, e.start_ns);
    it->second.second = std::max(it->second.second, e.end_ns);
  }
  std::map<std::string, std::vector<double>> dispatch, completion;
  for (const auto& [key, s] : span) {
    auto step = steps.find(key.second);
    if (step == steps.end()) continue;
    const std::string& device = trace.device_name(key.first);
    dispatch[device].push_back(std::max<int64_t>(0, s.first - step->second->start_ns) * 1e-9);
    completion[device].push_back(std::max<int64_t>(0, step->second->end_ns - s.second) * 1e-9);
  }
  for (auto& [d, v] : dispatch) out->dispatch_s[d] = Mean(v);
  for (auto& [d, v] : completion) out->completion_s[d] = Mean(v);
}

}  // namespace

MeasuredLatencies MeasureLatencies(const Trace& trace, const std::set<int64_t>* steps) {
  MeasuredLatencies out;
  MeasureTransfers(trace, steps, &out);
  MeasureControlPlane(trace, steps, &out);
  return out;
}

}  // namespace fb::sim
