#pragma once
// The control plane of the distributed runtime (whitepaper 3.2.2 "the master issues one run
// request per worker per step", 3.3 fault tolerance): messages carried by
// MpiTransport::SendControl (tag kControlTag). Messages without partitions, devices or stats
// (every untraced run and done) use a compact binary form: 'C', uint8 type (0 register,
// 1 registered, 2 run, 3 done, 4 abort, 5 ping, 6 pong, 7 devices, 8 shutdown), int64 id, int64 step_id, uint8 trace, int32 status code, uint32 message
// length, message bytes (host byte order, byte_io.h); the others are a JSON object (first byte
// '{'). Encoding and decoding a run as JSON took about 3 us, a noticeable part of a null step.
//
//   worker -> master  "devices"     the worker's devices (registration, so placement sees them)
//   master -> worker  "register"    id = graph handle, partitions = device -> GraphDef
//   worker -> master  "registered"  id = graph handle, status
//   master -> worker  "run"         id = graph handle, step_id, trace (record node executions)
//   worker -> master  "done"        step_id, status (names the task and the failing node),
//                                   stats (with trace: one NodeExecStats per executed node)
//   master -> worker  "abort"       step_id, status: abort that step's rendezvous and executors
//   master -> worker  "ping"        id = sequence number (health check)
//   worker -> master  "pong"        id = the ping's sequence number
//   master -> worker  "shutdown"    stop serving
#include <map>
#include <string>
#include <vector>

#include "engine/graph/node_def.h"
#include "engine/placement/device_desc.h"
#include "engine/runtime/step_stats.h"

namespace fb::mpi {

struct ControlMessage {
  std::string type;
  int64_t id = 0;
  int64_t step_id = 0;
  Status status;
  std::map<std::string, GraphDef> partitions;  // "register"
  DeviceSet devices;                           // "devices"
  bool trace = false;                          // "run"
  std::vector<NodeExecStats> stats;            // "done" of a traced run
};

std::string EncodeControl(const ControlMessage& m);
// DataLoss naming the problem for bytes that are not a control message.
StatusOr<ControlMessage> DecodeControl(const std::string& bytes);

}  // namespace fb::mpi
