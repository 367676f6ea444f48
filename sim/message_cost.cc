#include "sim/message_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace fb::sim {
namespace {

// `text` as a finite number in [0, max]; 0 when absent (nullptr).
StatusOr<double> ParseBounded(const std::string& host, const char* key, const char* text,
                              double max, const char* unit) {
  if (text == nullptr) return 0.0;
  char* end = nullptr;
  const double x = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(x) || x < 0 || x > max)
    return InvalidArgument("host '", host, "': property ", key, " must be a number of ", unit,
                           " in [0, ", max, "], got '", text, "'");
  return x;
}

}  // namespace

double MessageCost::Seconds(int64_t bytes) const {
  double s = overhead_s;
  if (serialize_bytes_per_s > 0)
    s += static_cast<double>(std::max<int64_t>(bytes, 0)) / serialize_bytes_per_s;
  return s;
}

double MessageCost::SendSeconds(int64_t bytes) const {
  if (!(send_bytes_per_s > 0)) return 0;
  return static_cast<double>(std::max<int64_t>(bytes, 0)) / send_bytes_per_s;
}

StatusOr<MessageCost> ParseMessageCost(const std::string& host, const char* overhead_ns,
                                       const char* serialize_bytes_per_s, const char* latency_ns,
                                       const char* send_serialize_bytes_per_s) {
  MessageCost c;
  ASSIGN_OR_RETURN(double ns, ParseBounded(host, "message_overhead_ns", overhead_ns,
                                           kMaxMessageOverheadNs, "ns"));
  c.overhead_s = ns * 1e-9;
  ASSIGN_OR_RETURN(c.serialize_bytes_per_s,
                   ParseBounded(host, "serialize_bytes_per_s", serialize_bytes_per_s,
                                kMaxSerializeBytesPerS, "bytes/s"));
  ASSIGN_OR_RETURN(double lat, ParseBounded(host, "message_latency_ns", latency_ns,
                                            kMaxMessageOverheadNs, "ns"));
  c.latency_s = lat * 1e-9;
  ASSIGN_OR_RETURN(c.send_bytes_per_s,
                   ParseBounded(host, "send_serialize_bytes_per_s", send_serialize_bytes_per_s,
                                kMaxSerializeBytesPerS, "bytes/s"));
  return c;
}

MessageQueues::MessageQueues(std::vector<MessageCost> per_device)
    : cost_(std::move(per_device)),
      free_s_(cost_.size(), -std::numeric_limits<double>::infinity()) {
  for (const MessageCost& c : cost_) enabled_ = enabled_ || c.enabled();
}

double MessageQueues::Handle(int device, double arrival_s, int64_t bytes) {
  if (device < 0 || static_cast<size_t>(device) >= cost_.size() || !cost_[device].enabled())
    return arrival_s;
  const MessageCost& c = cost_[device];
  // A handler still busy (or already waking up) takes the message next; an idle one wakes first.
  const double start = arrival_s < free_s_[device] ? free_s_[device] : arrival_s + c.latency_s;
  const double done = start + c.Seconds(bytes);
  free_s_[device] = done;
  return done;
}

double MessageQueues::Send(int device, double now_s, int64_t bytes) {
  if (device < 0 || static_cast<size_t>(device) >= cost_.size() ||
      !(cost_[device].send_bytes_per_s > 0))
    return now_s;
  const double start = std::max(now_s, free_s_[device]);  // the sending thread is awake
  const double done = start + cost_[device].SendSeconds(bytes);
  free_s_[device] = done;
  return done;
}

}  // namespace fb::sim
