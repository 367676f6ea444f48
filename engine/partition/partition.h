#pragma once
// Partitioning (whitepaper 3.2.2, Figure 4): splits a placed graph into one subgraph per device.
// Every data edge between devices becomes a _Send on the source device and a _Recv on the
// destination; all consumers of one tensor on one destination device share a single _Recv.
// Control edges across devices become a _Send/_Recv of a dummy scalar followed by a control edge.
// Loops whose nodes span devices get a control-loop state machine per partition (4.4; see
// control_loops.h), so that each device runs the loop's iterations in step with the others.
#include <map>
#include <string>
#include <vector>

#include "engine/graph/graph.h"

namespace fb {

struct PartitionStats {
  int num_send_recv_pairs = 0;
  int num_control_transfers = 0;
};

// Every node of `g` must have an assigned device. `partitions` maps device name to GraphDef,
// each NodeDef's `device` field set to that device.
Status Partition(const Graph& g, std::map<std::string, GraphDef>* partitions,
                 PartitionStats* stats = nullptr);

// The tensor name a Send/Recv pair carries: "node:port".
std::string TransferTensorName(const Node& src, int port);

// Gates on Recv nodes (whitepaper 5.2, set by the "alap_recv" pass): a producer's attr
//   _recv_gates: list(string) of "port;destination device;gate node"
// makes the _Recv of that output on that device wait (control input) for the gate node, which
// must be on the destination device.
inline constexpr const char* kRecvGatesAttr = "_recv_gates";
struct RecvGate {
  int port = 0;
  std::string dst_device;
  std::string gate;
};
// The gates recorded on `producer` (malformed entries are skipped).
std::vector<RecvGate> RecvGates(const Node& producer);

}  // namespace fb
