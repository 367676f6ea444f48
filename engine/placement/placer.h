#pragma once
// Placement entry point used by the Session (whitepaper 3.2.1 / 4.3): assigns every node of a
// graph a device from `devices`, honouring requested-device constraints, kernel availability and
// colocation of reference consumers with their Variable. `placer` names the algorithm ("" for the
// default). InvalidArgument naming the nodes whose constraints leave no feasible device.
#include <string>

#include "engine/graph/graph.h"
#include "engine/placement/device_desc.h"

namespace fb {

Status PlaceGraph(Graph* g, const DeviceSet& devices, const std::string& placer);

}  // namespace fb
