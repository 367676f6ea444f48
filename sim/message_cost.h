#pragma once
// Per-message service cost of a simulated host (issues 18 and 20): the CPU time a host's
// runtime spends on each message it receives (request handling, matching, deserialisation: the
// MPI progress thread here, gRPC in TensorFlow 2016), from two optional host properties:
//
//   <prop id="message_overhead_ns" value="150000"/>      ns of handling per message (>= 0)
//   <prop id="serialize_bytes_per_s" value="2e9"/>       bytes/s of deserialisation; 0 or absent:
//                                                        free (no per-byte cost)
//   <prop id="message_latency_ns" value="2000000"/>      ns from a message's arrival until an idle
//                                                        host starts handling it (>= 0): the
//                                                        receiving thread's wake-up, e.g. a rank
//                                                        waiting for a CPU on a loaded machine
//   <prop id="send_serialize_bytes_per_s" value="2e9"/>  bytes/s of serialisation of each message
//                                                        the host SENDS, on the same handler as
//                                                        the messages it receives; 0 or absent:
//                                                        sending is free
//
// A host handles its messages one at a time, in arrival order (one progress thread): message k
// arriving at a_k starts at s_k = d_{k-1} if a_k < d_{k-1} (the handler is busy or waking up),
// else at a_k + latency (an idle handler wakes up), and is delivered at d_k = s_k + overhead +
// bytes / serialize rate. So the W updates that W workers send one parameter server queue
// behind each other (each pays the overhead), while messages that arrive together share one
// wake-up (the latency is paid once per burst). The
// handling runs beside the device's compute (another thread), not on the device's Exec.
//
// Sending (send_serialize_bytes_per_s > 0): a message of b bytes that the host sends at t is
// serialised on the same handler, in the same one-at-a-time order as the received messages:
// from s = max(t, the handler's free time) (no wake-up: the sending thread is running) to
// s + b / send_serialize_bytes_per_s, and only then enters the links. No per-message overhead is
// charged for sending (message_overhead_ns stays the cost of a message received). With both
// rates equal, the host's per-byte cost is one CPU budget that the two directions share: the
// serialisation and deserialisation (protobuf, gRPC framing, copies) of TensorFlow's 2016 gRPC
// transport, which was CPU-bound far below its links (tensorflow/tensorflow issues 4498: 1.3
// Gbit/s on 40 Gbit/s Ethernet with TF 0.10; 6116: 100-200 MB/s per RecvTensor stream before the
// 2017 gRPC upgrade; 10530: "single threaded serialization/deserialization"). A full-duplex link
// instead lets a host send and receive at its full rate at once.
// Applies to tensor messages and, with SimRunOptions::control_plane, to the master's run
// requests and the done replies (sim/control_plane.h); not to the rounds of an allreduce.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/framework/status.h"

namespace fb::sim {

struct MessageCost {
  double overhead_s = 0;             // seconds per message
  double serialize_bytes_per_s = 0;  // 0: no per-byte cost
  double latency_s = 0;              // seconds from arrival until an idle handler starts
  double send_bytes_per_s = 0;       // serialisation of sent messages; 0: free
  bool enabled() const {
    return overhead_s > 0 || serialize_bytes_per_s > 0 || latency_s > 0 || send_bytes_per_s > 0;
  }
  // Handling time of one received message of `bytes` bytes, in seconds.
  double Seconds(int64_t bytes) const;
  // Serialisation time of one sent message of `bytes` bytes, in seconds (0 when sending is free).
  double SendSeconds(int64_t bytes) const;
};

// Largest accepted values: 1e12 ns (1,000 s) per message and of latency, 1e18 bytes/s.
inline constexpr double kMaxMessageOverheadNs = 1e12;
inline constexpr double kMaxSerializeBytesPerS = 1e18;

// Parses the four property values of host `host` (nullptr: absent). InvalidArgument naming the
// host and the property for text that is not a number, a negative, NaN or infinite value, or one
// above the limits above (send_serialize_bytes_per_s: kMaxSerializeBytesPerS).
StatusOr<MessageCost> ParseMessageCost(const std::string& host, const char* overhead_ns,
                                       const char* serialize_bytes_per_s,
                                       const char* latency_ns = nullptr,
                                       const char* send_serialize_bytes_per_s = nullptr);

// The handling queues of every device of a replay (one per platform device; one device per
// host). Not thread-safe (SimGrid runs one actor at a time).
class MessageQueues {
 public:
  MessageQueues() = default;
  explicit MessageQueues(std::vector<MessageCost> per_device);
  bool enabled() const { return enabled_; }
  // A message of `bytes` bytes for `device` arrived at `arrival_s` (any clock, the same for all
  // calls): returns when its handling ends, per the queue discipline above, and books the device's
  // handler until then. Messages are booked in the order of the calls; a device without a cost
  // returns `arrival_s`.
  double Handle(int device, double arrival_s, int64_t bytes);
  // `device` sends a message of `bytes` bytes at `now_s` (the same clock): returns when its
  // serialisation ends (when it may enter the links), per the sending rule above, and books the
  // device's handler until then. A device whose send_bytes_per_s is 0 returns `now_s` and books
  // nothing.
  double Send(int device, double now_s, int64_t bytes);

 private:
  std::vector<MessageCost> cost_;
  std::vector<double> free_s_;
  bool enabled_ = false;
};

}  // namespace fb::sim
