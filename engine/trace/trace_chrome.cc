#include "engine/trace/trace_chrome.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>

namespace fb {

namespace {

int64_t TraceOrigin(const Trace& trace) {
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (const EventRecord& e : trace.events) origin = std::min(origin, e.start_ns);
  return trace.events.empty() ? 0 : origin;
}

bool Selected(const EventRecord& e, int64_t origin, const ChromeExportOptions& o) {
  if (o.step >= 0 && e.step != o.step) return false;
  if (o.start_ns >= 0 && e.end_ns - origin < o.start_ns) return false;
  if (o.end_ns >= 0 && e.start_ns - origin >= o.end_ns) return false;
  return true;
}

// Events of one (device, rank, stream), split into lanes: each lane holds events that are
// disjoint or properly nested, so every lane renders as a well-formed row. Events must arrive
// sorted by start (ties: longer first).
struct Lanes {
  struct Lane {
    std::vector<const EventRecord*> events;
    std::vector<const EventRecord*> open;  // enclosing events still running, innermost last
  };
  std::vector<Lane> lanes;
  void Add(const EventRecord* e) {
    for (Lane& lane : lanes) {
      while (!lane.open.empty() && lane.open.back()->end_ns <= e->start_ns) lane.open.pop_back();
      if (lane.open.empty() || e->end_ns <= lane.open.back()->end_ns) {
        lane.events.push_back(e);
        lane.open.push_back(e);
        return;
      }
    }
    lanes.push_back({{e}, {e}});
  }
};

using StreamKey = std::tuple<int32_t, int32_t, int64_t>;  // device, rank, stream

nlohmann::json Metadata(const char* name, int pid, int64_t tid, nlohmann::json args) {
  nlohmann::json m = {{"name", name}, {"ph", "M"}, {"pid", pid}, {"args", std::move(args)}};
  if (tid >= 0) m["tid"] = tid;
  return m;
}

nlohmann::json CompleteEvent(const Trace& t, const EventRecord& e, int pid, int64_t tid,
                             int64_t origin) {
  nlohmann::json args = {{"op", t.str(e.op_type)}, {"step", e.step}, {"rank", e.rank}};
  if (e.kind == static_cast<int32_t>(EventKind::kCompute)) {
    args["output_bytes"] = e.bytes;
  } else {
    args["bytes"] = e.bytes;
    args["peer_device"] = t.device_name(e.peer_device);
  }
  return {{"name", t.str(e.node)},     {"cat", EventKindName(e.kind)},
          {"ph", "X"},                 {"pid", pid},
          {"tid", tid},                {"ts", (e.start_ns - origin) / 1000.0},
          {"dur", (e.end_ns - e.start_ns) / 1000.0}, {"args", std::move(args)}};
}

std::string StepsWithEvents(const Trace& trace) {
  std::set<int64_t> steps;
  for (const EventRecord& e : trace.events) steps.insert(e.step);
  return std::to_string(steps.size()) + (steps.size() == 1 ? " step, " : " steps, ") +
         std::to_string(*steps.begin()) + " to " + std::to_string(*steps.rbegin());
}

}  // namespace

Status CheckChromeExportSelection(const Trace& trace, const ChromeExportOptions& o) {
  if (o.start_ns >= 0 && o.end_ns >= 0 && o.start_ns >= o.end_ns)
    return InvalidArgument(trace.path, ": the window start (--start-ns ", o.start_ns,
                           ") must be before its end (--end-ns ", o.end_ns, ")");
  if (trace.events.empty()) return Status::OK();
  const int64_t origin = TraceOrigin(trace);
  for (const EventRecord& e : trace.events)
    if (Selected(e, origin, o)) return Status::OK();
  int64_t last_ns = 0;
  for (const EventRecord& e : trace.events) last_ns = std::max(last_ns, e.end_ns - origin);
  std::string selection;
  if (o.step >= 0) selection += "step " + std::to_string(o.step) + " (--step)";
  if (o.start_ns >= 0 || o.end_ns >= 0) {
    if (!selection.empty()) selection += " in ";
    selection += "the window [" + (o.start_ns >= 0 ? std::to_string(o.start_ns) : "0") + ", " +
                 (o.end_ns >= 0 ? std::to_string(o.end_ns) : "end") +
                 ") ns (--start-ns, --end-ns)";
  }
  return InvalidArgument(trace.path, ": ", selection, " selects none of its ",
                         trace.events.size(), " events; they lie in ", StepsWithEvents(trace),
                         ", and span 0 to ", last_ns, " ns after the first event");
}

nlohmann::json ChromeTraceJson(const Trace& trace, const ChromeExportOptions& options) {
  const int64_t origin = TraceOrigin(trace);
  std::vector<const EventRecord*> selected;
  for (const EventRecord& e : trace.events)
    if (Selected(e, origin, options)) selected.push_back(&e);
  std::stable_sort(selected.begin(), selected.end(), [](const EventRecord* a, const EventRecord* b) {
    return a->start_ns < b->start_ns || (a->start_ns == b->start_ns && a->end_ns > b->end_ns);
  });
  std::map<StreamKey, Lanes> streams;
  for (const EventRecord* e : selected) streams[{e->device, e->rank, e->stream}].Add(e);

  nlohmann::json events = nlohmann::json::array();
  for (size_t d = 0; d < trace.devices.size(); ++d)
    events.push_back(Metadata("process_name", static_cast<int>(d) + 1, -1,
                              {{"name", trace.device_name(static_cast<int32_t>(d))}}));
  int64_t tid = 0;
  for (const auto& [key, lanes] : streams) {
    const auto& [device, rank, stream] = key;
    const int pid = device + 1;  // pid 0 holds events without a device
    for (size_t l = 0; l < lanes.lanes.size(); ++l) {
      ++tid;
      std::string name = "rank " + std::to_string(rank) + " thread " + std::to_string(stream);
      if (l > 0) name += " #" + std::to_string(l + 1);
      events.push_back(Metadata("thread_name", pid, tid, {{"name", name}}));
      events.push_back(Metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
      for (const EventRecord* e : lanes.lanes[l].events)
        events.push_back(CompleteEvent(trace, *e, pid, tid, origin));
    }
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"source", trace.path},
            {"origin_ns", origin},
            {"mode", TraceModeName(trace.metadata.mode)},
            {"schema_version", trace.schema_version}}}};
}

Status WriteChromeTrace(const Trace& trace, const std::string& out_path,
                        const ChromeExportOptions& options) {
  RETURN_IF_ERROR(CheckChromeExportSelection(trace, options));
  // Names are bytes from the file: invalid UTF-8 becomes U+FFFD instead of a json exception.
  const std::string text = ChromeTraceJson(trace, options)
                               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  bool gz = options.gzip || (out_path.size() > 3 && out_path.ends_with(".gz"));
  if (gz) {
    gzFile f = gzopen(out_path.c_str(), "wb6");
    if (!f) return Internal(out_path, ": cannot open for writing: ", std::strerror(errno));
    int written = gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    int rc = gzclose(f);
    if (written != static_cast<int>(text.size()) || rc != Z_OK)
      return Internal(out_path, ": gzip write failed");
    return Status::OK();
  }
  std::ofstream out(out_path, std::ios::binary);
  if (!out) return Internal(out_path, ": cannot open for writing: ", std::strerror(errno));
  out << text;
  out.close();
  if (!out) return Internal(out_path, ": write failed");
  return Status::OK();
}

}  // namespace fb
